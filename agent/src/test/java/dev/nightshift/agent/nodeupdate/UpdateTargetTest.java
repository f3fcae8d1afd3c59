package dev.nightshift.agent.nodeupdate;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.nightshift.agent.TestClusters;
import dev.nightshift.strategies.model.DesiredPool;

class UpdateTargetTest {

    static DesiredPool pool() {
        return TestClusters.load("""
                apiVersion: nightshift.dev/v1alpha1
                kind: Cluster
                metadata: {name: c}
                spec:
                  kubernetes:
                    version: "1.31.5"
                    kubelet:
                      kubeReserved: {cpu: 80m, memory: 1Gi}
                      evictionHard: {memory.available: 100Mi}
                ---
                apiVersion: nightshift.dev/v1alpha1
                kind: WorkerPool
                metadata: {name: web, cluster: c}
                spec:
                  minimum: 1
                  maximum: 3
                  machine: {type: m5.large, image: {name: gardenlinux, version: 1632.0.0}}
                  kubernetes:
                    kubelet:
                      systemReserved: {cpu: 20m}
                      cpuManagerPolicy: static
                """).pools().get(0);
    }

    @Test
    void theTargetHasExactlyTheContractsKeysWithThePoolsResolvedValues() throws Exception {
        JsonNode target = new ObjectMapper().readTree(UpdateTarget.json(pool().spec()));

        assertThat(target.fieldNames()).toIterable().containsExactly("machineImage", "kubernetesVersion", "kubelet", "cri");
        assertThat(target.get("machineImage").fieldNames()).toIterable().containsExactly("name", "version");
        assertThat(target.at("/machineImage/name").asText()).isEqualTo("gardenlinux");
        assertThat(target.at("/machineImage/version").asText()).isEqualTo("1632.0.0");
        assertThat(target.get("kubernetesVersion").asText()).isEqualTo("1.31.5");
        assertThat(target.get("kubelet").fieldNames()).toIterable()
                .containsExactly("kubeReserved", "systemReserved", "evictionHard", "cpuManagerPolicy");
        assertThat(target.at("/kubelet/kubeReserved").toString()).isEqualTo("{\"cpu\":\"80m\",\"memory\":\"1Gi\"}");
        assertThat(target.at("/kubelet/systemReserved").toString()).isEqualTo("{\"cpu\":\"20m\"}");
        assertThat(target.at("/kubelet/evictionHard/memory.available").isTextual()).isTrue();
        assertThat(target.at("/kubelet/cpuManagerPolicy").asText()).isEqualTo("static");
        assertThat(target.get("cri").asText()).isEqualTo("containerd");
    }

    @Test
    void kubeletSettingsTheSpecLeavesUnsetAreEmptyOrNull() throws Exception {
        JsonNode target = new ObjectMapper().readTree(UpdateTarget.json(TestClusters.oneWebPool().pools().get(0).spec()));

        assertThat(List.of(target.at("/kubelet/kubeReserved"), target.at("/kubelet/systemReserved"), target.at("/kubelet/evictionHard")))
                .allSatisfy(m -> assertThat(m.isObject() && m.isEmpty()).isTrue());
        assertThat(target.at("/kubelet/cpuManagerPolicy").isNull()).isTrue();
        assertThat(target.get("kubernetesVersion").asText()).isEqualTo("1.31.4");
    }
}
