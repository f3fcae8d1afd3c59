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
    void aRepositoryUrlCarryingATokenOrAPasswordIsRefusedWithoutRepeatingIt() {
        assertThatThrownBy(() -> config("https://ghp_t0k3n@github.com/example/c.git", Optional.empty()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the repository URL (git.url, --repo) must not carry credentials before an @"
                        + " (https://github.com/example/c.git): credentials come from files: git.auth.tokenFile (or tokenEnv)"
                        + " and git.auth.user for https://, git.auth.sshKeyFile for ssh://");
        assertThatThrownBy(() -> config("https://user:hunter2@git.example.com/c.git", Optional.empty()))
                .message().doesNotContain("hunter2").doesNotContain("user:");
        assertThatThrownBy(() -> config("ssh://git:hunter2@git.example.com/c.git", Optional.empty()))
                .hasMessageContaining("must not carry a password").message().doesNotContain("hunter2");
        // A host name Java's URI cannot parse as one (an underscore) still has its user info found.
        assertThatThrownBy(() -> config("https://ghp_t0k3n@git_server.example.com/c.git", Optional.empty()))
                .message().doesNotContain("ghp_t0k3n");
    }

    @Test
    void anSshUrlMayNameItsUser() {
        assertThat(config("ssh://git@git.example.com/c.git", Optional.empty()).url()).hasToString("ssh://git@git.example.com/c.git");
    }

    @Test
    void byDefaultAPollGivesUpAfterAMinuteOfSilence() {
        assertThat(config("https://git.example.com/c.git", Optional.empty()).timeout()).isEqualTo(Duration.ofSeconds(60));
    }
}
