package dev.nightshift.agent.git;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
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

    @Test
    void aTimeoutUnderASecondIsRefusedBecauseJGitWouldWaitForever() {
        // JGit counts whole seconds, and 0 means no timeout at all.
        assertThatThrownBy(() -> new GitSourceConfig(URI.create("https://git.example.com/c.git"), "main", "", new GitCredentials.None(),
                Path.of("/tmp/cache"), Optional.empty(), Duration.ofMillis(500)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("the Git timeout must be at least 1s, got PT0.5S");
    }

    @Test
    void byDefaultAPollGivesUpAfterAMinuteOfSilence() {
        assertThat(config("https://git.example.com/c.git", Optional.empty()).timeout()).isEqualTo(Duration.ofSeconds(60));
    }
}
