package dev.ateom.virtiofsd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class VirtiofsdBinaryTest {

    @TempDir
    Path dir;

    @Test
    void probesTheInstalledVersionAndItsFlags() {
        VirtiofsdBinary binary = VirtiofsdBinary.probe(TestVirtiofsd.binaryPath());
        assertThat(binary.version()).isEqualTo(VirtiofsdBinary.TESTED_VERSION).isEqualTo("1.14.0");
        assertThat(binary.flags()).containsAll(VirtiofsdArgv.REQUIRED_FLAGS).contains("--writeback", "--allow-mmap");
    }

    @Test
    void refusesAVersionThatLacksANeededFlagAndNamesIt() throws IOException {
        String realHelp = VirtiofsdBinary.probe(TestVirtiofsd.binaryPath()).help();
        // an older virtiofsd had no --migration-on-error
        String oldHelp = realHelp.lines().filter(l -> !l.contains("--migration-on-error")).collect(Collectors.joining("\n"));
        Path fake = fakeVirtiofsd("virtiofsd 1.10.0", oldHelp);

        assertThatThrownBy(() -> VirtiofsdBinary.probe(fake))
                .isInstanceOf(UnsupportedVirtiofsdException.class)
                .hasMessageContaining("virtiofsd 1.10.0")
                .hasMessageContaining("lacks the flag --migration-on-error")
                .hasMessageContaining(fake.toString());
    }

    @Test
    void refusesAVersionWithoutFindPathsMigration() throws IOException {
        String realHelp = VirtiofsdBinary.probe(TestVirtiofsd.binaryPath()).help();
        Path fake = fakeVirtiofsd("virtiofsd 1.9.0", realHelp.replace("find-paths", "exhaustive"));

        assertThatThrownBy(() -> VirtiofsdBinary.probe(fake))
                .isInstanceOf(UnsupportedVirtiofsdException.class)
                .hasMessageContaining("--migration-mode=find-paths");
    }

    @Test
    void refusesSomethingThatIsNotVirtiofsd() throws IOException {
        Path fake = fakeVirtiofsd("qemu-storage-daemon 8.0", "usage: whatever");
        assertThatThrownBy(() -> VirtiofsdBinary.probe(fake))
                .isInstanceOf(UnsupportedVirtiofsdException.class)
                .hasMessageContaining("not a virtiofsd binary")
                .hasMessageContaining("qemu-storage-daemon 8.0");
    }

    @Test
    void refusesAMissingBinary() {
        Path missing = dir.resolve("nope/virtiofsd");
        assertThatThrownBy(() -> VirtiofsdBinary.probe(missing))
                .isInstanceOf(UnsupportedVirtiofsdException.class)
                .hasMessageContaining(missing.toString())
                .hasMessageContaining("does not exist or is not executable");
    }

    private Path fakeVirtiofsd(String version, String help) throws IOException {
        Path helpFile = dir.resolve("help.txt");
        Files.writeString(helpFile, help);
        Path script = dir.resolve("virtiofsd");
        Files.writeString(script, "#!/bin/sh\ncase \"$1\" in\n  --version) echo '" + version + "';;\n  *) cat '" + helpFile + "';;\nesac\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        return script;
    }
}
