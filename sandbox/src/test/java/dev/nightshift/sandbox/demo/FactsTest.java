package dev.nightshift.sandbox.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** {@code sandbox --info}'s JSON: every key always there, the ones a world has no part for null. */
class FactsTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void everyKeyIsThereAndTheAgentConfigurationIsNullWhenNoneWasWritten() throws Exception {
        JsonNode json = JSON.readTree(new EmbeddedWorld.Facts("http://127.0.0.1:1", Path.of("/w/kubeconfig"), null, null,
                "http://127.0.0.1:2", "http://127.0.0.1:3", Path.of("/w/machine-api-token")).json());

        assertThat(json.fieldNames()).toIterable().containsExactly("apiServer", "kubeconfig", "repository", "clone", "agent",
                "machineApi", "machineApiTokenFile", "agentConfig");
        assertThat(json.get("agentConfig").isNull()).isTrue();
        assertThat(json.get("repository").isNull()).isTrue();
    }

    @Test
    void theAgentConfigurationIsNamedWhenOneWasWritten() throws Exception {
        JsonNode json = JSON.readTree(new EmbeddedWorld.Facts("http://127.0.0.1:1", Path.of("/w/kubeconfig"), Path.of("/w/specs.git"),
                Path.of("/w/specs"), null, "http://127.0.0.1:3", Path.of("/w/machine-api-token"), Path.of("/w/agent.yaml")).json());

        assertThat(json.get("agentConfig").asText()).isEqualTo("/w/agent.yaml");
        assertThat(json.get("agent").isNull()).isTrue();
    }
}
