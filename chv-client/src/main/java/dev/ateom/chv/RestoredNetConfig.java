package dev.ateom.chv;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;

/**
 * One {@code net_fds} entry of vm.restore: the net device {@code id} (as the snapshot's config.json names it) and how
 * many of the descriptors passed with the request are its. Missing from CHV's OpenAPI document; the wire shape is
 * CHV v54's {@code RestoredNetConfig} (vmm/src/config.rs): {@code {"id": "_net0", "num_fds": 1}}.
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record RestoredNetConfig(String id, int numFds) {
}
