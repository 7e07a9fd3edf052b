package dev.ateom.chv;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;

/** CHV {@code vsock}: guest CID and the hybrid-vsock Unix socket on the host. */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record VsockConfig(long cid, String socket, String id) {
    public static VsockConfig of(long cid, String socket) {
        return new VsockConfig(cid, socket, null);
    }
}
