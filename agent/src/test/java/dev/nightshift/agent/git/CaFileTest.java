package dev.nightshift.agent.git;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CaFileTest {

    @TempDir
    Path tmp;

    @Test
    void aFileWithoutACertificateBlockIsNotPem() throws Exception {
        Path file = Files.writeString(tmp.resolve("ca.pem"), "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n");

        assertThatThrownBy(() -> CaFile.trustManagers(file)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("CA file " + file + ": not a PEM file with a certificate");
    }

    @Test
    void aBrokenCertificateBlockIsNamedByItsPosition() throws Exception {
        Path file = Files.writeString(tmp.resolve("ca.pem"), "-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n");

        assertThatThrownBy(() -> CaFile.trustManagers(file)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("CA file " + file + ": certificate 1 is not a valid X.509 certificate");
    }

    @Test
    void aDirectoryCannotBeRead() {
        assertThatThrownBy(() -> CaFile.trustManagers(tmp)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("CA file " + tmp + ": cannot be read");
    }
}
