package dev.nightshift.agent.git;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.file.Path;
import java.util.Optional;

import org.junit.jupiter.api.Test;

class GitSourceConfigTest {

    private static GitSourceConfig config(String url, Optional<Path> caFile) {
        return new GitSourceConfig(URI.create(url), "main", "", new GitCredentials.None(), Path.of("/tmp/cache"), caFile);
    }

    @Test
    void aCaFileIsOnlyForHttpsRepositories() {
        assertThatThrownBy(() -> config("ssh://git@git.example.com/c.git", Optional.of(Path.of("/etc/ca.pem"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a CA file (/etc/ca.pem) is only for https:// repositories, got ssh://git.example.com/c.git; "
                        + "SSH host keys are checked against knownHostsFile");
    }

    @Test
    void withoutACaFileTheJdkCasAreTrusted() {
        assertThat(new GitSourceConfig(URI.create("https://git.example.com/c.git"), "main", "", new GitCredentials.None(),
                Path.of("/tmp/cache")).caFile()).isEmpty();
        assertThat(config("https://git.example.com/c.git", Optional.of(Path.of("/etc/ca.pem"))).caFile())
                .contains(Path.of("/etc/ca.pem"));
    }
}
