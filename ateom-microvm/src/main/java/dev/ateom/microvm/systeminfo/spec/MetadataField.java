package dev.ateom.microvm.systeminfo.spec;

import java.util.Arrays;
import java.util.Optional;

/** The identity fields an {@code actorMetadata} item can project; JSON names are lower case. */
public enum MetadataField {
    NAME("name"), NAMESPACE("namespace"), UID("uid");

    private final String jsonName;

    MetadataField(String jsonName) {
        this.jsonName = jsonName;
    }

    public String jsonName() {
        return jsonName;
    }

    public static Optional<MetadataField> fromJsonName(String name) {
        return Arrays.stream(values()).filter(f -> f.jsonName.equals(name)).findFirst();
    }
}
