package dev.nightshift.spec.load;

import static dev.nightshift.spec.load.SpecFixtures.CLUSTER;
import static dev.nightshift.spec.load.SpecFixtures.POOL;
import static dev.nightshift.spec.load.SpecFixtures.POOL_FILE;
import static dev.nightshift.spec.load.SpecFixtures.assertOnlyError;
import static dev.nightshift.spec.load.SpecFixtures.loadPool;
import static dev.nightshift.spec.load.SpecFixtures.pool;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import org.junit.jupiter.api.Test;

class YamlSafetyTest {

    @Test
    void duplicateKeyIsRejectedAtTheSecondKey() {
        LoadResult result = loadPool(pool("  minimum: 2"));

        assertThat(result.errors()).singleElement().satisfies(e -> {
            assertThat(e.file()).isEqualTo(POOL_FILE);
            assertThat(e.line()).isEqualTo(8);
            assertThat(e.column()).isEqualTo(3);
            assertThat(e.message()).contains("duplicate key").contains("line 5");
        });
        assertThat(result.specs().pools()).isEmpty();
    }

    @Test
    void duplicateKeyErrorNamesTheFullFieldPath() {
        LoadResult result = loadPool(pool("  minimum: 2"));

        assertThat(result.errors()).singleElement().extracting(SpecError::path).isEqualTo("spec.minimum");
    }

    @Test
    void duplicateKeyInAFlowMappingIsRejected() {
        LoadResult result = loadPool(POOL.replace("{name: cpu, cluster: prod}", "{name: cpu, name: gpu, cluster: prod}"));

        assertThat(result.errors()).singleElement().satisfies(e -> {
            assertThat(e.line()).isEqualTo(3);
            assertThat(e.column()).isEqualTo(23);
            assertThat(e.message()).contains("duplicate key");
        });
    }

    @Test
    void pythonObjectTagIsRejected() {
        LoadResult result = loadPool(pool("  providerConfig: !!python/object:os.system [rm]"));

        assertOnlyError(result, POOL_FILE, 8, 19, "", "python/object:os.system");
        assertThat(result.errors().get(0).message()).contains("not allowed");
    }

    @Test
    void pythonApplyTagIsRejected() {
        LoadResult result = loadPool(pool("  providerConfig: {x: !!python/object/apply:os.system [\"echo hi\"]}"));

        assertThat(result.errors()).singleElement().satisfies(e -> {
            assertThat(e.line()).isEqualTo(8);
            assertThat(e.column()).isEqualTo(23);
            assertThat(e.message()).contains("not allowed");
        });
    }

    @Test
    void customLocalTagIsRejected() {
        LoadResult result = loadPool(pool("  providerConfig: !foo {a: 1}"));

        assertOnlyError(result, POOL_FILE, 8, 19, "spec.providerConfig", "the YAML tag !foo is not allowed");
    }

    @Test
    void customGlobalTagIsRejected() {
        LoadResult result = loadPool(pool("  labels: {team: !<tag:example.com,2000:app/foo> web}"));

        assertOnlyError(result, POOL_FILE, 8, 18, "spec.labels.team", "not allowed");
    }

    @Test
    void yamlBinaryTagIsRejected() {
        LoadResult result = loadPool(pool("  providerConfig: {blob: !!binary aGVsbG8=}"));

        assertOnlyError(result, POOL_FILE, 8, 26, "spec.providerConfig.blob", "not allowed");
    }

    @Test
    void explicitStringTagIsAccepted() {
        LoadResult result = loadPool(pool("  kubernetes: {version: !!str 1.31.4}"));

        assertThat(result.errors()).isEmpty();
    }

    @Test
    void mergeKeyIsRejected() {
        LoadResult result = loadPool(pool(
                "  providerConfig: &pc {team: web}",
                "  labels: {<<: *pc}"));

        assertOnlyError(result, POOL_FILE, 9, 12, "spec.labels", "merge keys (<<) are not supported");
    }

    @Test
    void billionLaughsIsAnErrorNotACrash() {
        StringBuilder yaml = new StringBuilder(pool("  providerConfig:", "    l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"));
        for (int level = 1; level <= 9; level++) {
            yaml.append("    l").append(level).append(": &l").append(level).append(" [");
            for (int i = 0; i < 9; i++) {
                yaml.append(i == 0 ? "" : ", ").append("*l").append(level - 1);
            }
            yaml.append("]\n");
        }

        LoadResult[] result = new LoadResult[1];
        assertThatCode(() -> result[0] = loadPool(yaml.toString())).doesNotThrowAnyException();

        assertThat(result[0].errors()).singleElement().satisfies(e -> {
            assertThat(e.file()).isEqualTo(POOL_FILE);
            assertThat(e.message()).contains("aliases");
        });
    }

    @Test
    void aliasChainWithinTheAliasLimitCannotExpandToMillionsOfValues() {
        // 19 levels of 2 aliases each: 38 aliases (under the limit of 50), 2^20 scalars once expanded.
        // At 24 levels (48 aliases) the same 1 KB file expands to 2^25 scalars.
        StringBuilder yaml = new StringBuilder(pool("  providerConfig:", "    l0: &l0 [lol, lol]"));
        for (int level = 1; level <= 19; level++) {
            yaml.append("    l").append(level).append(": &l").append(level)
                    .append(" [*l").append(level - 1).append(", *l").append(level - 1).append("]\n");
        }

        LoadResult result = loadPool(yaml.toString());

        assertThat(result.errors()).as("a %d-byte file expanding to 2^20 values", yaml.length()).isNotEmpty();
    }

    @Test
    void scalarAliasesAreAllowed() {
        LoadResult result = loadPool(pool(
                "  labels: {team: &team web}",
                "  taints: [{key: team, value: *team}]"));

        assertThat(result.errors()).isEmpty();
        assertThat(result.specs().pools().get(0).taints().get(0).value()).isEqualTo("web");
    }

    @Test
    void nestingBeyondTheLimitIsAnErrorNotACrash() {
        String deep = "{a: ".repeat(60) + "1" + "}".repeat(60);

        LoadResult[] result = new LoadResult[1];
        assertThatCode(() -> result[0] = loadPool(pool("  providerConfig: " + deep))).doesNotThrowAnyException();

        assertThat(result[0].errors()).singleElement().satisfies(e -> {
            assertThat(e.file()).isEqualTo(POOL_FILE);
            assertThat(e.message()).containsIgnoringCase("nest");
        });
    }

    @Test
    void invalidSyntaxIsReportedWithFileLineAndColumn() {
        LoadResult result = loadPool(POOL.replace("kind: WorkerPool", "kind: WorkerPool: x"));

        assertOnlyError(result, POOL_FILE, 2, 17, "", "invalid YAML");
        assertThat(result.errors().get(0).message()).contains("mapping values are not allowed here");
    }

    @Test
    void unclosedFlowMappingIsReportedWithFileLineAndColumn() {
        LoadResult result = loadPool(pool("  labels: {team: web"));

        assertThat(result.errors()).singleElement().satisfies(e -> {
            assertThat(e.file()).isEqualTo(POOL_FILE);
            assertThat(e.line()).isGreaterThanOrEqualTo(8);
            assertThat(e.message()).startsWith("invalid YAML");
        });
    }

    @Test
    void aSyntaxErrorInOneFileDoesNotHideTheOtherFiles() {
        LoadResult result = SpecFixtures.load(
                "cluster.yaml", CLUSTER,
                "pools/a.yaml", POOL.replace("kind: WorkerPool", "kind: WorkerPool: x"),
                "pools/b.yaml", pool("  role: worker"));

        assertThat(result.errors()).extracting(SpecError::file).containsExactly("pools/a.yaml", "pools/b.yaml");
    }

    @Test
    void nonUtf8BytesAreAnError() {
        byte[] latin1 = pool("  labels: {team: caf\u00e9}").getBytes(StandardCharsets.ISO_8859_1);

        LoadResult result = new SpecLoader().load(Map.of(
                "cluster.yaml", CLUSTER.getBytes(StandardCharsets.UTF_8),
                POOL_FILE, latin1));

        assertOnlyError(result, POOL_FILE, 1, 1, "", "UTF-8");
    }

    @Test
    void invalidUtf8LeadBytesAreAnErrorNotACrash() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        bytes.writeBytes(new byte[] {(byte) 0xff, (byte) 0xfe, (byte) 0xc0, (byte) 0x80});
        bytes.writeBytes(POOL.getBytes(StandardCharsets.UTF_8));

        LoadResult result = new SpecLoader().load(Map.of(POOL_FILE, bytes.toByteArray()));

        assertOnlyError(result, POOL_FILE, 1, 1, "", "UTF-8");
    }

    @Test
    void aFileLargerThanTheLimitIsRefusedUnread() {
        byte[] big = new byte[(int) SpecLoader.MAX_FILE_BYTES + 1];
        java.util.Arrays.fill(big, (byte) '#');

        LoadResult result = new SpecLoader().load(Map.of("big.yaml", big));

        assertOnlyError(result, "big.yaml", 1, 1, "", "larger than");
    }

    @Test
    void aDocumentThatIsNotAMappingIsRejected() {
        LoadResult result = loadPool("- apiVersion: nightshift.dev/v1alpha1\n");

        assertOnlyError(result, POOL_FILE, 1, 1, "", "must be a mapping");
    }

    @Test
    void complexMappingKeysAreRejected() {
        LoadResult result = loadPool(pool("  labels: {? [a, b] : c}"));

        assertOnlyError(result, POOL_FILE, 8, 14, "spec.labels", "mapping keys must be plain scalars");
    }
}
