package dev.ateom.store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.Parameter;

/**
 * Store tests that run once per S3 server kind: a subclass is a {@code @ParameterizedClass} over the kinds it wants
 * ({@code @EnumSource(S3ServerKind.class)}, or some of them by name); each invocation starts a server of its kind,
 * which the hosts of {@link StoreTestBase} then use, and stops it afterwards.
 */
abstract class PerServerTestBase extends StoreTestBase {
    private static TestS3Server started;
    private static Path startedIn;

    @Parameter
    S3ServerKind kind;

    @BeforeParameterizedClassInvocation
    static void startKind(S3ServerKind kind) throws IOException {
        startedIn = Files.createTempDirectory("ateom-store-" + kind.name().toLowerCase(Locale.ROOT) + "-");
        started = kind.start(startedIn);
        server = started;
    }

    @AfterParameterizedClassInvocation
    static void stopKind() {
        started.close();
        ChildS3Server.deleteTree(startedIn);
    }
}
