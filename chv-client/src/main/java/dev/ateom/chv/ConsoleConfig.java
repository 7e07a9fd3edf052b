package dev.ateom.chv;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;

/** CHV {@code serial} / {@code console}: where a console goes ({@code file} for File, {@code socket} for Socket). */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record ConsoleConfig(ConsoleMode mode, String file, String socket) {
    public static ConsoleConfig off() {
        return new ConsoleConfig(ConsoleMode.Off, null, null);
    }

    public static ConsoleConfig toFile(String file) {
        return new ConsoleConfig(ConsoleMode.File, file, null);
    }
}
