package dev.ateom.microvm.systeminfo.spec;

import java.util.Objects;

/** Who a sandbox is: projected into system-info volumes by {@code actorMetadata} sources. */
public record ActorIdentity(String name, String namespace, String uid) {
    public ActorIdentity {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(uid, "uid");
    }

    /** The value of one metadata field. */
    public String value(MetadataField field) {
        return switch (field) {
            case NAME -> name;
            case NAMESPACE -> namespace;
            case UID -> uid;
        };
    }
}
