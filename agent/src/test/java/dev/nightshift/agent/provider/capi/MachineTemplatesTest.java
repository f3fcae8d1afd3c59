package dev.nightshift.agent.provider.capi;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import dev.nightshift.spec.hash.StampedHash;
import dev.nightshift.spec.model.KubeletConfig;
import dev.nightshift.spec.model.Quantity;

/** The pure parts of {@link MachineTemplates}: kubelet flags and clone names. */
class MachineTemplatesTest {

    private static Quantity q(String text) {
        return Quantity.parse(text).orElseThrow();
    }

    @Test
    void kubeletSettingsBecomeTheKubeletsFlags() {
        KubeletConfig kubelet = new KubeletConfig(Optional.of(Map.of("memory", q("1Gi"), "cpu", q("100m"))),
                Optional.of(Map.of("ephemeral-storage", q("1Gi"))), Optional.of(Map.of("nodefs.available", "10%",
                "memory.available", "104857600")), Optional.of("static"));

        assertThat(MachineTemplates.kubeletFlags(kubelet)).containsExactly(
                Map.entry("cpu-manager-policy", "static"),
                Map.entry("eviction-hard", "memory.available<104857600,nodefs.available<10%"),
                Map.entry("kube-reserved", "cpu=100m,memory=1Gi"),
                Map.entry("system-reserved", "ephemeral-storage=1Gi"));
    }

    @Test
    void settingsNotGivenOrEmptyAreNoFlag() {
        KubeletConfig kubelet = new KubeletConfig(Optional.of(Map.of()), Optional.empty(), Optional.empty(), Optional.empty());

        assertThat(MachineTemplates.kubeletFlags(kubelet)).isEmpty();
        assertThat(MachineTemplates.kubeletFlags(KubeletConfig.EMPTY)).isEmpty();
    }

    @Test
    void everyFlagWrittenIsOneNightshiftOwns() {
        KubeletConfig all = new KubeletConfig(Optional.of(Map.of("cpu", q("1"))), Optional.of(Map.of("cpu", q("1"))),
                Optional.of(Map.of("memory.available", "5%")), Optional.of("none"));

        assertThat(MachineTemplates.KUBELET_FLAGS).containsExactlyInAnyOrderElementsOf(MachineTemplates.kubeletFlags(all).keySet());
    }

    @Test
    void cloneNamesCarryTheFirstTenHexOfTheHash() {
        StampedHash hash = new StampedHash(1, "0123456789abcdef0123456789abcdef");

        assertThat(MachineTemplates.cloneName("web-md", hash)).isEqualTo("web-md-0123456789");
        assertThat(MachineTemplates.kubeletCloneName("web-md", hash)).isEqualTo("web-md-kubelet-0123456789");
    }
}
