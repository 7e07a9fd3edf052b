package dev.ateom.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.ProfileCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.profiles.ProfileFile;

/** Settings that cannot work fail with a typed error that names the setting. */
class StoreErrorsTest extends StoreTestBase {

    @Test
    void anUnknownBucketNamesTheLocation() throws IOException {
        Host host = host("nobucket", server.settings("no-such-bucket", "fleet"), CACHE_BYTES, HOST_CPU);
        assertThatThrownBy(() -> host.remote().checkAccess()).isInstanceOf(BucketNotFoundException.class)
                .hasMessageContaining("no-such-bucket").hasMessageContaining("snapshot-store")
                .satisfies(e -> assertThat(((StoreException) e).option()).contains(StoreOption.LOCATION));
        assertThatThrownBy(() -> host.remote().list()).isInstanceOf(BucketNotFoundException.class);
        assertThatThrownBy(() -> host.remote().push(PushPullTest.guest().commit(host.local(), "s"), PushListener.NONE))
                .isInstanceOf(BucketNotFoundException.class);
    }

    @Test
    void anEndpointNothingListensOnNamesTheEndpoint() throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        Host host = host("noendpoint", settings().withEndpoint("http://127.0.0.1:" + closedPort), CACHE_BYTES, HOST_CPU);
        assertThatThrownBy(() -> host.remote().checkAccess()).isInstanceOf(StoreUnavailableException.class)
                .hasMessageContaining("snapshot-store-endpoint")
                .satisfies(e -> assertThat(((StoreException) e).option()).contains(StoreOption.ENDPOINT));
    }

    @Test
    void malformedSettingsNameTheirOption() throws StoreConfigException {
        assertThatThrownBy(() -> StoreLocation.parse("http://bucket/x")).isInstanceOf(StoreConfigException.class)
                .hasMessageStartingWith("snapshot-store:");
        assertThatThrownBy(() -> StoreLocation.parse("s3://Bad_Bucket/x")).isInstanceOf(StoreConfigException.class)
                .hasMessageContaining("bucket name");
        assertThatThrownBy(() -> StoreLocation.parse("s3://bucket/../x")).isInstanceOf(StoreConfigException.class);
        assertThatThrownBy(() -> settings().withEndpoint("localhost:9000")).isInstanceOf(StoreConfigException.class)
                .hasMessageStartingWith("snapshot-store-endpoint:");
        assertThatThrownBy(() -> settings().withRegion("Not A Region")).isInstanceOf(StoreConfigException.class)
                .hasMessageStartingWith("snapshot-store-region:");
        assertThat(StoreLocation.parse("s3://my-bucket/a/b/").key("chunks/x")).isEqualTo("a/b/chunks/x");
        assertThat(StoreLocation.parse("s3://my-bucket").key("chunks/x")).isEqualTo("chunks/x");
    }

    @Test
    void missingCredentialsAreReportedAtOpenNamingWhereTheyComeFrom() throws IOException {
        Path emptyProfile = Files.writeString(work.resolve("empty-credentials"), "");
        ProfileCredentialsProvider nowhere = ProfileCredentialsProvider.builder()
                .profileFile(ProfileFile.builder().content(emptyProfile).type(ProfileFile.Type.CREDENTIALS).build())
                .profileName("ateom-test-absent").build();
        assertThatThrownBy(() -> RemoteSnapshotStore.open(settings().withCredentials(nowhere), work.resolve("chunks"), CACHE_BYTES, HOST_CPU))
                .isInstanceOf(StoreCredentialsException.class).hasMessageContaining("AWS_ACCESS_KEY_ID")
                .satisfies(e -> assertThat(((StoreException) e).option()).contains(StoreOption.CREDENTIALS));
    }

    @Test
    void credentialsTheStoreRefusesAreACredentialsError() throws IOException {
        StaticCredentialsProvider wrong = StaticCredentialsProvider.create(AwsBasicCredentials.create(S3ProxyServer.IDENTITY, "wrong"));
        Host host = host("wrongsecret", settings().withCredentials(wrong), CACHE_BYTES, HOST_CPU);
        assertThatThrownBy(() -> host.remote().list()).isInstanceOf(StoreCredentialsException.class)
                .hasMessageContaining("credentials");
    }
}
