package dev.nightshift.agent.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;

import org.junit.jupiter.api.Test;

import dev.nightshift.agent.notify.EventType;
import dev.nightshift.agent.notify.Forge;
import dev.nightshift.agent.notify.NotificationSettings;

class NotificationsSectionTest {

    private final AgentConfigLoader loader = new AgentConfigLoader();

    @Test
    void theIssuesExampleIsRead() {
        AgentConfigLoader.Result r = loader.parse("agent.yaml", """
                notifications:
                  commitStatus:
                    github: {apiUrl: https://api.github.com, repository: org/fleet-specs, tokenFile: /var/run/secrets/github/token}
                  webhooks:
                  - {url: https://hooks.example.com/nightshift, secretFile: /var/run/secrets/hook/secret, events: [all]}
                  slack: {webhookUrlFile: /var/run/secrets/slack/url, events: [rollout.started, pool.halted, pool.failed, rollout.completed]}
                  announce: 2h
                  statusUrl: https://nightshift.example.com/status
                """);

        assertThat(r.errors()).isEmpty();
        NotificationSettings n = r.config().orElseThrow().notifications();
        assertThat(n.commitStatus()).contains(new NotificationSettings.CommitStatusTarget(Forge.GITHUB, URI.create("https://api.github.com"),
                "org/fleet-specs", Path.of("/var/run/secrets/github/token")));
        assertThat(n.webhooks()).containsExactly(new NotificationSettings.WebhookTarget(URI.create("https://hooks.example.com/nightshift"),
                Path.of("/var/run/secrets/hook/secret"), EnumSet.allOf(EventType.class)));
        assertThat(n.slack().orElseThrow().events()).containsExactlyInAnyOrder(EventType.ROLLOUT_STARTED, EventType.POOL_HALTED,
                EventType.POOL_FAILED, EventType.ROLLOUT_COMPLETED);
        assertThat(n.announce()).contains(Duration.ofHours(2));
        assertThat(n.statusUrl()).contains(URI.create("https://nightshift.example.com/status"));
        assertThat(n.timeout()).isEqualTo(NotificationSettings.DEFAULT_TIMEOUT);
    }

    @Test
    void gitLabAndGiteaAreRead() {
        NotificationSettings gitlab = loader.parse("agent.yaml", """
                notifications:
                  commitStatus:
                    gitlab: {apiUrl: https://gitlab.com/api/v4, projectId: platform/fleet-specs, tokenFile: /t}
                """).config().orElseThrow().notifications();
        NotificationSettings gitea = loader.parse("agent.yaml", """
                notifications:
                  commitStatus:
                    gitea: {apiUrl: https://gitea.example.com/api/v1, repository: org/fleet-specs, tokenFile: /t}
                """).config().orElseThrow().notifications();

        assertThat(gitlab.commitStatus().orElseThrow().forge()).isEqualTo(Forge.GITLAB);
        assertThat(gitlab.commitStatus().orElseThrow().repository()).isEqualTo("platform/fleet-specs");
        assertThat(gitea.commitStatus().orElseThrow().forge()).isEqualTo(Forge.GITEA);
    }

    @Test
    void withoutTheSectionNothingIsNotified() {
        assertThat(loader.parse("agent.yaml", "cluster: prod\n").config().orElseThrow().notifications().any()).isFalse();
    }

    @Test
    void aTokenWrittenInlineIsRefusedWithoutRepeatingIt() {
        AgentConfigLoader.Result r = loader.parse("agent.yaml", """
                notifications:
                  commitStatus:
                    github: {apiUrl: https://api.github.com, repository: org/r, token: ghp_abcdef}
                """);

        assertThat(r.errors()).anySatisfy(e -> assertThat(e).startsWith("agent.yaml:3:").contains("notifications.commitStatus.github.token")
                .contains("tokenFile"));
        assertThat(String.join("\n", r.errors())).doesNotContain("ghp_abcdef");
    }

    @Test
    void aSlackUrlWrittenInlineIsRefused() {
        AgentConfigLoader.Result r = loader.parse("agent.yaml", """
                notifications:
                  slack: {webhookUrl: https://hooks.slack.com/services/T/B/X}
                """);

        assertThat(r.errors()).anySatisfy(e -> assertThat(e).contains("notifications.slack.webhookUrl").contains("webhookUrlFile"));
        assertThat(String.join("\n", r.errors())).doesNotContain("hooks.slack.com");
    }

    @Test
    void everyProblemIsNamedWithFileLineAndField() {
        AgentConfigLoader.Result r = loader.parse("agent.yaml", """
                notifications:
                  commitStatus:
                    github: {apiUrl: http://github.internal.example.com, repository: fleet-specs}
                    gitea: {apiUrl: https://gitea.example.com/api/v1, repository: o/r, tokenFile: /t}
                  webhooks:
                  - {url: https://hooks.example.com/x, events: [pool.done]}
                  announce: soon
                  queueSize: 0
                """);

        assertThat(r.config()).isEmpty();
        assertThat(r.errors()).anySatisfy(e -> assertThat(e).startsWith("agent.yaml:3:").contains("notifications.commitStatus.github.apiUrl")
                .contains("in clear"));
        assertThat(r.errors()).anySatisfy(e -> assertThat(e).startsWith("agent.yaml:3:")
                .contains("notifications.commitStatus.github.repository: must be owner/name"));
        assertThat(r.errors()).anySatisfy(e -> assertThat(e).contains("notifications.commitStatus.github.tokenFile: is required"));
        assertThat(r.errors()).anySatisfy(e -> assertThat(e).startsWith("agent.yaml:6:")
                .contains("notifications.webhooks[0].secretFile: is required"));
        assertThat(r.errors()).anySatisfy(e -> assertThat(e).startsWith("agent.yaml:6:")
                .contains("notifications.webhooks[0].events: unknown event \"pool.done\""));
        assertThat(r.errors()).anySatisfy(e -> assertThat(e).startsWith("agent.yaml:7:").contains("notifications.announce"));
        assertThat(r.errors()).anySatisfy(e -> assertThat(e).startsWith("agent.yaml:8:").contains("notifications.queueSize"));
    }

    @Test
    void twoForgesAreRefused() {
        AgentConfigLoader.Result r = loader.parse("agent.yaml", """
                notifications:
                  commitStatus:
                    github: {apiUrl: https://api.github.com, repository: o/r, tokenFile: /t}
                    gitlab: {apiUrl: https://gitlab.com/api/v4, projectId: "42", tokenFile: /t}
                """);

        assertThat(r.errors()).containsExactly("agent.yaml:4:13: notifications.commitStatus.gitlab: give one forge under commitStatus,"
                + " not github and gitlab");
    }

    @Test
    void anUnknownKeyIsRefused() {
        AgentConfigLoader.Result r = loader.parse("agent.yaml", """
                notifications:
                  slack: {webhookUrlFile: /u, channel: ops}
                """);

        assertThat(r.errors()).anySatisfy(e -> assertThat(e).startsWith("agent.yaml:2:").contains("notifications.slack.channel"));
    }

    @Test
    void eventsDefaultToAll() {
        NotificationSettings n = loader.parse("agent.yaml", """
                notifications:
                  slack: {webhookUrlFile: /u}
                """).config().orElseThrow().notifications();

        assertThat(n.slack().orElseThrow().events()).isEqualTo(Set.copyOf(EnumSet.allOf(EventType.class)));
    }

    @Test
    void aFragmentLaysItsSectionsOverAConfigurationAndKeepsTheRest(@org.junit.jupiter.api.io.TempDir Path tmp) throws Exception {
        Path file = java.nio.file.Files.writeString(tmp.resolve("notify.yaml"), """
                notifications:
                  webhooks:
                  - {url: https://hooks.example.com/x, secretFile: /s}
                validation: {consecutive: 2}
                """);
        AgentConfig base = AgentConfig.DEFAULTS.with(new AgentConfig.Overrides(java.util.Optional.empty(), java.util.Optional.empty(),
                java.util.Optional.empty(), java.util.Optional.empty(), java.util.Optional.of("demo"), java.util.Optional.of(0),
                java.util.Optional.empty(), java.util.Optional.empty()));

        AgentConfigLoader.Fragment fragment = loader.fragment(file);
        AgentConfig laid = fragment.overlay().orElseThrow().apply(base);

        assertThat(fragment.errors()).isEmpty();
        assertThat(laid.notifications().webhooks()).hasSize(1);
        assertThat(laid.validation().consecutive()).isEqualTo(2);
        assertThat(laid.cluster()).contains("demo");
        assertThat(laid.http().port()).isZero();
    }

    @Test
    void aFragmentsErrorsAreTheLoadersAtFileAndLine(@org.junit.jupiter.api.io.TempDir Path tmp) throws Exception {
        Path file = java.nio.file.Files.writeString(tmp.resolve("notify.yaml"), """
                notifications:
                  slack: {events: [all]}
                """);

        assertThat(loader.fragment(file).errors()).singleElement().satisfies(e -> assertThat(e).startsWith("notify.yaml:2:")
                .contains("notifications.slack.webhookUrlFile: is required"));
    }
}
