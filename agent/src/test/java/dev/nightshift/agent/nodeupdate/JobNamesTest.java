package dev.nightshift.agent.nodeupdate;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;

import org.junit.jupiter.api.Test;

import dev.nightshift.spec.hash.StampedHash;

class JobNamesTest {

    private static final StampedHash TARGET = new StampedHash(1, "0123456789abcdef0123456789abcdef");
    private static final String DNS_LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";

    @Test
    void aShortNodeIsNamedInFullWithTheOperationAndTheFirstTenHexOfTheTarget() {
        assertThat(JobNames.of(UpdateOperation.IN_PLACE, "web-1", TARGET)).isEqualTo("nightshift-in-place-web-1-0123456789");
        assertThat(JobNames.of(UpdateOperation.RESTART_KUBELET, "web-1", TARGET)).isEqualTo("nightshift-kubelet-web-1-0123456789");
    }

    @Test
    void aLongNodeIsShortenedWithAHashOfItsNameToADnsLabelOfAtMost63() {
        String node = "worker-pool-with-a-very-long-name-in-eu-central-1a-0001";
        String name = JobNames.of(UpdateOperation.IN_PLACE, node, TARGET);

        assertThat(name).hasSizeLessThanOrEqualTo(63).matches(DNS_LABEL).startsWith("nightshift-in-place-worker-pool-with")
                .endsWith("-0123456789");
        assertThat(JobNames.of(UpdateOperation.IN_PLACE, node, TARGET)).as("deterministic").isEqualTo(name);
    }

    @Test
    void nodesThatShareTheirBeginningOrDifferOnlyInDotsGetDistinctNames() {
        Set<String> names = new HashSet<>();
        String common = "worker-pool-with-a-very-long-name-in-eu-central-1a-";
        for (int i = 0; i < 200; i++) {
            names.add(JobNames.of(UpdateOperation.RESTART_KUBELET, common + i, TARGET));
        }
        names.add(JobNames.of(UpdateOperation.RESTART_KUBELET, "ip-10-0-0-1.ec2.internal", TARGET));
        names.add(JobNames.of(UpdateOperation.RESTART_KUBELET, "ip-10-0-0-1-ec2-internal", TARGET));

        assertThat(names).hasSize(202).allSatisfy(n -> assertThat(n).hasSizeLessThanOrEqualTo(63).matches(DNS_LABEL));
    }

    @Test
    void theTargetHashAndTheOperationTellJobsOfOneNodeApart() {
        StampedHash other = new StampedHash(1, "fedcba9876543210fedcba9876543210");

        assertThat(Set.of(JobNames.of(UpdateOperation.IN_PLACE, "web-1", TARGET), JobNames.of(UpdateOperation.IN_PLACE, "web-1", other),
                JobNames.of(UpdateOperation.RESTART_KUBELET, "web-1", TARGET))).hasSize(3);
    }

    @Test
    void aNodeNameIsItsOwnLabelValueWhenItIsOneAndShortenedOtherwise() {
        assertThat(JobNames.labelValue("web-1")).isEqualTo("web-1");
        String longName = "n".repeat(80) + ".example.com";
        assertThat(JobNames.labelValue(longName)).hasSizeLessThanOrEqualTo(63).matches(DNS_LABEL)
                .isNotEqualTo(JobNames.labelValue("n".repeat(81) + ".example.com"));
    }
}
