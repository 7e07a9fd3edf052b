package dev.ateom.microvm.systeminfo.spec;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/** One data source of a volume: exactly one of the two members is set (checked by the validator). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record SourceSpec(
        @JsonProperty("actorMetadata") ActorMetadataSource actorMetadata,
        @JsonProperty("hostDirectory") HostDirectorySource hostDirectory) {

    public static SourceSpec of(ActorMetadataSource source) {
        return new SourceSpec(source, null);
    }

    public static SourceSpec of(HostDirectorySource source) {
        return new SourceSpec(null, source);
    }
}
