package dev.nightshift.spec.hash;

import static dev.nightshift.spec.hash.TestSpecs.ROLLING;
import static dev.nightshift.spec.hash.TestSpecs.edit;
import static dev.nightshift.spec.hash.TestSpecs.kubelet;
import static dev.nightshift.spec.hash.TestSpecs.roll;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** Every roll-hash input, one test each: changing it alone changes the roll hash. */
class RollHashTest {

    private static void assertRollHashChanges(String changed) {
        assertThat(roll(changed)).isNotEqualTo(roll(ROLLING));
    }

    @Test
    void theSameSpecAlwaysGivesTheSameStampedHash() {
        StampedHash hash = roll(ROLLING);

        assertThat(roll(ROLLING)).isEqualTo(hash);
        assertThat(hash.version()).isEqualTo(1);
        assertThat(hash.value()).matches("[0-9a-f]{32}");
        assertThat(hash).hasToString("v1:" + hash.value());
    }

    @Test
    void rollAndKubeletHashesDifferForTheSameSpec() {
        assertThat(roll(ROLLING).value()).isNotEqualTo(kubelet(ROLLING).value());
    }

    @Nested
    class EachInputChangesTheRollHash {

        @Test
        void clusterKubernetesMinorVersion() {
            assertRollHashChanges(edit(ROLLING, "version: \"1.31.4\"", "version: \"1.32.0\""));
        }

        @Test
        void poolKubernetesMinorVersion() {
            String pinned = edit(ROLLING, "cri: {name: containerd}", "cri: {name: containerd}\n  kubernetes: {version: \"1.30.2\"}");
            String older = edit(pinned, "kubernetes: {version: \"1.30.2\"}", "kubernetes: {version: \"1.29.2\"}");

            assertThat(roll(older)).isNotEqualTo(roll(pinned));
        }

        @Test
        void machineImageName() {
            assertRollHashChanges(edit(ROLLING, "image: {name: gardenlinux, version: 1631.0.0}", "image: {name: ubuntu, version: 1631.0.0}"));
        }

        @Test
        void machineImageVersion() {
            assertRollHashChanges(edit(ROLLING, "image: {name: gardenlinux, version: 1631.0.0}", "image: {name: gardenlinux, version: 1632.0.0}"));
        }

        @Test
        void machineType() {
            assertRollHashChanges(edit(ROLLING, "type: m5.large", "type: m5.xlarge"));
        }

        @Test
        void volumeType() {
            assertRollHashChanges(edit(ROLLING, "volume: {type: gp3", "volume: {type: io1"));
        }

        @Test
        void volumeSize() {
            assertRollHashChanges(edit(ROLLING, "size: 50Gi", "size: 100Gi"));
        }

        @Test
        void addingAVolume() {
            String without = edit(ROLLING, "  volume: {type: gp3, size: 50Gi}\n", "");

            assertThat(roll(without)).isNotEqualTo(roll(ROLLING));
        }

        @Test
        void providerConfigValue() {
            assertRollHashChanges(edit(ROLLING, "iops: 3000", "iops: 4000"));
        }

        @Test
        void providerConfigNewKey() {
            assertRollHashChanges(edit(ROLLING, "iops: 3000}", "iops: 3000, encrypted: true}"));
        }

        @Test
        void providerConfigNumberBecomingAString() {
            assertRollHashChanges(edit(ROLLING, "iops: 3000", "iops: \"3000\""));
        }

        @Test
        void criName() {
            assertRollHashChanges(edit(ROLLING, "cri: {name: containerd}", "cri: {name: docker}"));
        }

        @Test
        void nodeLocalDnsEnabled() {
            assertRollHashChanges(edit(ROLLING, "nodeLocalDNS: {enabled: false}", "nodeLocalDNS: {enabled: true}"));
        }

        @Test
        void certificateAuthoritiesRotationTime() {
            assertRollHashChanges(edit(ROLLING, "certificateAuthorities:\n        lastInitiationTime: \"2026-01-01T00:00:00Z\"",
                    "certificateAuthorities:\n        lastInitiationTime: \"2026-02-01T00:00:00Z\""));
        }

        @Test
        void serviceAccountKeyRotationTime() {
            assertRollHashChanges(edit(ROLLING, "serviceAccountKey: {lastInitiationTime: \"2026-01-01T00:00:00Z\"}",
                    "serviceAccountKey: {lastInitiationTime: \"2026-03-01T00:00:00Z\"}"));
        }

        @Test
        void startingAServiceAccountKeyRotation() {
            String without = edit(ROLLING, "      serviceAccountKey: {lastInitiationTime: \"2026-01-01T00:00:00Z\"}\n", "");

            assertThat(roll(without)).isNotEqualTo(roll(ROLLING));
        }

        @Test
        void kubeReservedAmount() {
            assertRollHashChanges(edit(ROLLING, "kubeReserved: {cpu: 80m, memory: 1Gi}", "kubeReserved: {cpu: 100m, memory: 1Gi}"));
        }

        @Test
        void systemReservedAmount() {
            assertRollHashChanges(edit(ROLLING, "systemReserved: {memory: 512Mi}", "systemReserved: {memory: 768Mi}"));
        }

        @Test
        void reservationOfANewResource() {
            assertRollHashChanges(edit(ROLLING, "systemReserved: {memory: 512Mi}", "systemReserved: {memory: 512Mi, pid: 1000}"));
        }

        @Test
        void evictionHardThreshold() {
            assertRollHashChanges(edit(ROLLING, "evictionHard: {memory.available: 100Mi}", "evictionHard: {memory.available: 200Mi}"));
        }

        @Test
        void evictionHardNewSignal() {
            assertRollHashChanges(edit(ROLLING, "evictionHard: {memory.available: 100Mi}",
                    "evictionHard: {memory.available: 100Mi, nodefs.available: 10%}"));
        }

        @Test
        void cpuManagerPolicy() {
            assertRollHashChanges(edit(ROLLING, "cpuManagerPolicy: none", "cpuManagerPolicy: static"));
        }

        @Test
        void poolKubeletOverrideOfOneField() {
            assertRollHashChanges(edit(ROLLING, "cri: {name: containerd}", "cri: {name: containerd}\n  kubernetes: {kubelet: {cpuManagerPolicy: static}}"));
        }
    }

    @Nested
    class PoolKubeletOverrides {

        @Test
        void aPoolOverrideEqualToTheClusterValueKeepsTheRollHash() {
            String same = edit(ROLLING, "cri: {name: containerd}",
                    "cri: {name: containerd}\n  kubernetes: {kubelet: {cpuManagerPolicy: none, evictionHard: {memory.available: 100Mi}}}");

            assertThat(roll(same)).isEqualTo(roll(ROLLING));
        }

        @Test
        void aPoolOverrideReplacesTheClusterFieldWholeNotPerResource() {
            // The pool's kubeReserved {cpu: 80m} replaces the cluster's {cpu: 80m, memory: 1Gi}: memory reservation drops by 1Gi.
            String override = edit(ROLLING, "cri: {name: containerd}", "cri: {name: containerd}\n  kubernetes: {kubelet: {kubeReserved: {cpu: 80m}}}");

            assertThat(roll(override)).isNotEqualTo(roll(ROLLING));
        }

        @Test
        void aClusterChangeToAFieldThePoolOverridesDoesNotChangeThePoolsRollHash() {
            String override = edit(ROLLING, "cri: {name: containerd}", "cri: {name: containerd}\n  kubernetes: {kubelet: {cpuManagerPolicy: static}}");
            String clusterChanged = edit(override, "cpuManagerPolicy: none", "cpuManagerPolicy: static");

            assertThat(roll(clusterChanged)).isEqualTo(roll(override));
        }

        @Test
        void aClusterChangeToAFieldThePoolDoesNotOverrideStillReachesThePool() {
            String override = edit(ROLLING, "cri: {name: containerd}", "cri: {name: containerd}\n  kubernetes: {kubelet: {cpuManagerPolicy: static}}");
            String clusterChanged = edit(override, "evictionHard: {memory.available: 100Mi}", "evictionHard: {memory.available: 300Mi}");

            assertThat(roll(clusterChanged)).isNotEqualTo(roll(override));
        }
    }

    @Test
    void twoDifferentSpecsCannotShareARollHashByMovingTextAcrossTheInputBoundary() {
        // Each input is digested as path NUL value LF. Moving "\nspec.volume.type\0y" from the volume type into the
        // machine type produces the same byte stream unless values are framed (length-prefixed or escaped).
        String a = edit(edit(ROLLING, "type: m5.large", "type: \"x\""), "volume: {type: gp3", "volume: {type: \"y\\nspec.volume.type\\0gp3\"");
        String b = edit(ROLLING, "type: m5.large", "type: \"x\\nspec.volume.type\\0y\"");

        assertThat(TestSpecs.web(a).pool().machine().type()).isNotEqualTo(TestSpecs.web(b).pool().machine().type());
        assertThat(roll(a)).isNotEqualTo(roll(b));
    }
}
