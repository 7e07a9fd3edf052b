package dev.ateom.chv;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;

/** One CHV {@code fs[]} entry: a virtio-fs device backed by a vhost-user socket; {@code id} is assigned by CHV at boot ({@code _fs0}...). */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record FsConfig(String tag, String socket, Integer numQueues, Integer queueSize, String id) {
    /** One request queue of 1024 entries, as CHV defaults. */
    public static FsConfig of(String tag, String socket) {
        return new FsConfig(tag, socket, 1, 1024, null);
    }
}
