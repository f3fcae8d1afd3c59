package dev.nightshift.agent.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The webhook secret as the agent reads it at start: too weak a secret stops the start, naming where it is, never what. */
class WebhookSecretTest {

    @TempDir
    Path tmp;

    private AgentConfig.Webhook file(String content) throws IOException {
        return AgentConfig.Webhook.secretFile(Files.writeString(tmp.resolve("webhook-secret"), content));
    }

    private static AgentConfig.Webhook env(String variable) {
        return new AgentConfig.Webhook(Optional.empty(), Optional.of(variable));
    }

    @Test
    void anEmptySecretFileIsRefusedNamingTheFile() throws IOException {
        AgentConfig.Webhook hook = file("\n");

        assertThatThrownBy(() -> hook.secret(Map.of())).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("webhook.secretFile " + tmp.resolve("webhook-secret") + ": the webhook secret is empty; give at least 16"
                        + " bytes, e.g. openssl rand -hex 32");
    }

    @Test
    void aSecretShorterThanSixteenBytesIsRefusedWithoutShowingIt() throws IOException {
        AgentConfig.Webhook hook = file("fifteen-bytes-x\n");

        assertThatThrownBy(() -> hook.secret(Map.of())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("webhook.secretFile " + tmp.resolve("webhook-secret"))
                .hasMessageContaining("is 15 bytes long; give at least 16")
                .message().doesNotContain("fifteen-bytes-x");
    }

    @Test
    void sixteenBytesAndATrailingNewlineAreEnough() throws IOException {
        assertThat(file("sixteen-bytes-xx\n").secret(Map.of()).orElseThrow().reveal()).isEqualTo("sixteen-bytes-xx");
    }

    @Test
    void aSecretVariableThatIsUnsetEmptyOrShortIsRefusedNamingTheVariable() throws IOException {
        assertThatThrownBy(() -> env("HOOK").secret(Map.of())).hasMessage("webhook.secretEnv HOOK: the variable is not set or empty");
        assertThatThrownBy(() -> env("HOOK").secret(Map.of("HOOK", " \n"))).hasMessage("webhook.secretEnv HOOK: the variable is not set or empty");
        assertThatThrownBy(() -> env("HOOK").secret(Map.of("HOOK", "short-one")))
                .hasMessageStartingWith("webhook.secretEnv HOOK: the webhook secret is 9 bytes long").message().doesNotContain("short-one");
        assertThat(env("HOOK").secret(Map.of("HOOK", "a-long-enough-secret")).orElseThrow().reveal()).isEqualTo("a-long-enough-secret");
    }

    @Test
    void withoutAConfiguredSecretTheWebhookIsSimplyNotServed() throws IOException {
        assertThat(AgentConfig.Webhook.NONE.secret(Map.of())).isEmpty();
    }
}
