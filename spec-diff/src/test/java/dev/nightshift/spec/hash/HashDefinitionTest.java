package dev.nightshift.spec.hash;

import static dev.nightshift.spec.hash.TestSpecs.ROLLING;
import static dev.nightshift.spec.hash.TestSpecs.edit;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.nightshift.spec.load.LoadResult;
import dev.nightshift.spec.load.SpecLoader;
import dev.nightshift.spec.model.ResolvedPool;

/**
 * What a v1 value is, written out the plain way: SHA-256 over the UTF-8 bytes of every input as
 * {@code <length in UTF-16 units>:<canonical value>}, concatenated in the version's order, first 16
 * bytes in lower-case hex. A faster {@link HashScheme} (streamed into a buffer, say) must compute
 * the same thing; this checks it on generated specs and on values that are not ASCII or are long,
 * where {@link PinnedHashesTest}'s examples do not reach.
 */
class HashDefinitionTest {

    private static String definition(HashScheme scheme, ResolvedPool pool) throws Exception {
        StringBuilder text = new StringBuilder();
        for (HashInput input : scheme.inputs(pool)) {
            text.append(input.canonical().length()).append(':').append(input.canonical());
        }
        byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.toString().getBytes(StandardCharsets.UTF_8));
        return HexFormat.of().formatHex(digest, 0, 16);
    }

    private static void assertDefinitionHolds(ResolvedPool pool) throws Exception {
        assertThat(HashScheme.ROLL.compute(pool).value()).as("roll hash of %s", pool).isEqualTo(definition(HashScheme.ROLL, pool));
        assertThat(HashScheme.KUBELET.compute(pool).value()).as("kubelet hash of %s", pool)
                .isEqualTo(definition(HashScheme.KUBELET, pool));
    }

    @Test
    void everyGeneratedSpecHashesAsDefined() throws Exception {
        SpecLoader loader = new SpecLoader();
        List<String> unloadable = new ArrayList<>();
        int checked = 0;
        for (long seed = 0; seed < 500; seed++) {
            RandomSpecs.Spec spec = RandomSpecs.generate(seed);
            LoadResult loaded = loader.load(spec.files());
            if (!loaded.errors().isEmpty()) {
                unloadable.add("seed " + seed + ": " + loaded.errors());
                continue;
            }
            for (ResolvedPool pool : loaded.specs().resolvedPools(spec.clusterName())) {
                assertDefinitionHolds(pool);
                checked++;
            }
        }

        assertThat(unloadable).isEmpty();
        assertThat(checked).isEqualTo(500);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "zoné-1a",                       // Latin-1, two UTF-8 bytes
            "東京-1a",                        // three UTF-8 bytes each
            "rocket-🚀-zone",                 // a surrogate pair: two UTF-16 units, four UTF-8 bytes
            "a-rather-long-zone-name-longer-than-two-sha-256-blocks-and-any-small-buffer-at-all-"
                    + "because-it-goes-on-and-on-well-past-one-hundred-and-twenty-eight-characters-é-and-ends-here"
    })
    void valuesThatAreNotAsciiOrAreLongHashAsDefined(String zone) throws Exception {
        ResolvedPool pool = TestSpecs.web(edit(ROLLING, "zone: eu-1a", "zone: \"" + zone + "\""));

        assertThat(pool.pool().providerConfig().canonical()).contains(zone);
        assertDefinitionHolds(pool);
    }
}
