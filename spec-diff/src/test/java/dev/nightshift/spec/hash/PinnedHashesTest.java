package dev.nightshift.spec.hash;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.nightshift.spec.load.LoadResult;
import dev.nightshift.spec.load.SpecLoader;
import dev.nightshift.spec.model.ClusterSpec;
import dev.nightshift.spec.model.ResolvedPool;
import dev.nightshift.spec.model.SpecSet;

/**
 * The v1 hashes of the bundled examples, pinned. Every fleet carries these values on its nodes:
 * if a refactor changes what v1 digests (an input added, reordered or canonicalised differently),
 * every stamped node of every cluster rolls on upgrade. No test that compares two computed hashes
 * sees that; only fixed values do.
 */
class PinnedHashesTest {

    private static final String ADD_A_VERSION = "%s changed. Nodes in every cluster carry v1 hashes, so a new v1 value rolls "
            + "all of them on upgrade. Do not update this pin: keep v1 as it was and add a hash version instead (a new "
            + "HashFunction listed last in HashScheme.ROLL or KUBELET; nodes stamped by v1 are then re-stamped, not rolled).";

    /** "example/cluster.pool kind" → the v1 value. */
    private static final Map<String, String> PINNED = Map.ofEntries(
            Map.entry("demo/demo.bastion kubelet", "f0e116a449adacb6cb713bef52e0a613"),
            Map.entry("demo/demo.bastion roll", "452b32a7fddca11b027524753fc6078b"),
            Map.entry("demo/demo.batch kubelet", "f0e116a449adacb6cb713bef52e0a613"),
            Map.entry("demo/demo.batch roll", "d77462eede5ef1f8658cc181815cd778"),
            Map.entry("demo/demo.cpu-worker kubelet", "f0e116a449adacb6cb713bef52e0a613"),
            Map.entry("demo/demo.cpu-worker roll", "f5855108785215a7d5bd1f73f2ec3331"),
            Map.entry("demo/demo.gpu-worker kubelet", "f0e116a449adacb6cb713bef52e0a613"),
            Map.entry("demo/demo.gpu-worker roll", "b0c232680ddf25062eae22a088cd109b"),
            Map.entry("multi-next/demo.bastion kubelet", "34ad9a1cf7c9120ebdfe6cb64e180e68"),
            Map.entry("multi-next/demo.bastion roll", "348a138571853db2b97a471b495873e2"),
            Map.entry("multi-next/demo.batch kubelet", "34ad9a1cf7c9120ebdfe6cb64e180e68"),
            Map.entry("multi-next/demo.batch roll", "1ae1b97c114b02317eaff1b38170c65a"),
            Map.entry("multi-next/demo.cpu-worker kubelet", "34ad9a1cf7c9120ebdfe6cb64e180e68"),
            Map.entry("multi-next/demo.cpu-worker roll", "0bbec1d56b67e0c874e6fd5e2e6e3e46"),
            Map.entry("multi-next/demo.gpu-worker kubelet", "34ad9a1cf7c9120ebdfe6cb64e180e68"),
            Map.entry("multi-next/demo.gpu-worker roll", "f3b1e00487f6e509e47d16cd835c73d1"),
            Map.entry("multi/demo.bastion kubelet", "86ea6293e391229e399272e0d9193ed1"),
            Map.entry("multi/demo.bastion roll", "348a138571853db2b97a471b495873e2"),
            Map.entry("multi/demo.batch kubelet", "86ea6293e391229e399272e0d9193ed1"),
            Map.entry("multi/demo.batch roll", "1ae1b97c114b02317eaff1b38170c65a"),
            Map.entry("multi/demo.cpu-worker kubelet", "86ea6293e391229e399272e0d9193ed1"),
            Map.entry("multi/demo.cpu-worker roll", "c03279ae9b57602a52cc85ec7ea266f2"),
            Map.entry("multi/demo.gpu-worker kubelet", "86ea6293e391229e399272e0d9193ed1"),
            Map.entry("multi/demo.gpu-worker roll", "71e40d43107c6364e4c5a76f29d43f91"),
            Map.entry("single/prod-eu1.cpu-worker kubelet", "265637e3ec2c82ec94c3cf4126ce5131"),
            Map.entry("single/prod-eu1.cpu-worker roll", "4dc21b9c80d5073ab62f4a33739d0696")
    );

    @ParameterizedTest
    @ValueSource(strings = {"single", "multi", "multi-next", "demo"})
    void theV1HashesOfTheBundledExamplesNeverChange(String example) {
        Map<String, String> actual = hashes(example);

        assertThat(actual).as("examples/%s has pools", example).isNotEmpty();
        actual.forEach((key, value) -> assertThat(value).as(ADD_A_VERSION, "the v1 " + key + " hash of examples/" + example)
                .isEqualTo(PINNED.get(example + "/" + key)));
    }

    private static Map<String, String> hashes(String example) {
        LoadResult result = new SpecLoader().load(Path.of("../examples", example));
        assertThat(result.errors()).as("errors loading examples/%s", example).isEmpty();
        SpecSet specs = result.specs();
        Map<String, String> hashes = new TreeMap<>();
        for (ClusterSpec cluster : specs.clusters()) {
            for (ResolvedPool pool : specs.resolvedPools(cluster.name())) {
                StampedHash roll = HashScheme.ROLL.compute(pool);
                StampedHash kubelet = HashScheme.KUBELET.compute(pool);
                assertThat(roll.version()).as("roll hash version").isEqualTo(1);
                assertThat(kubelet.version()).as("kubelet hash version").isEqualTo(1);
                hashes.put(cluster.name() + "." + pool.name() + " roll", roll.value());
                hashes.put(cluster.name() + "." + pool.name() + " kubelet", kubelet.value());
            }
        }
        return hashes;
    }
}
