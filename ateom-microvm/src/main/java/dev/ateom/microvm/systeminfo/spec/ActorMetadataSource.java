package dev.ateom.microvm.systeminfo.spec;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Projects fields of the sandbox's {@link ActorIdentity} into files. */
public record ActorMetadataSource(@JsonProperty("items") List<MetadataItem> items) {
    public ActorMetadataSource {
        items = items == null ? List.of() : Collections.unmodifiableList(new ArrayList<>(items));
    }

    /** {@code field} is kept as written so the validator can name a bad value; see {@link #metadataField()}. */
    public record MetadataItem(@JsonProperty("field") String field, @JsonProperty("path") String path) {
        public static MetadataItem of(MetadataField field, String path) {
            return new MetadataItem(field.jsonName(), path);
        }

        /** The field, for an item the validator accepted. */
        public MetadataField metadataField() {
            return MetadataField.fromJsonName(field)
                    .orElseThrow(() -> new IllegalStateException("unvalidated metadata field '" + field + "'"));
        }
    }
}
