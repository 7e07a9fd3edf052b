package dev.ateom.chv;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;

/** CHV {@code payload}: what to boot (kernel, its command line, initramfs; or firmware). */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record PayloadConfig(String kernel, String cmdline, String initramfs, String firmware) {
    public static PayloadConfig kernel(String kernel, String initramfs, String cmdline) {
        return new PayloadConfig(kernel, cmdline, initramfs, null);
    }
}
