package dev.nightshift.spec.bench;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

import dev.nightshift.spec.hash.HashScheme;
import dev.nightshift.spec.hash.RandomSpecs;
import dev.nightshift.spec.load.LoadResult;
import dev.nightshift.spec.load.SpecLoader;
import dev.nightshift.spec.model.ResolvedPool;

/**
 * Cost of both pool hashes over 10,000 generated pools (one cluster each), against a plain SHA-256
 * of each pool's YAML document as the floor. Not a test: run on demand with
 * {@code mvn -B -pl spec-diff -Pbench test-compile exec:exec} (after {@code mvn install -DskipTests}),
 * or quicker with {@code -Dbench.args="HashBenchmark -wi 1 -i 2 -f 1"}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 5, time = 2, timeUnit = TimeUnit.SECONDS)
@Fork(1)
public class HashBenchmark {

    static final int POOLS = 10_000;

    /** Every pool, loaded and validated like the agent loads them. */
    ResolvedPool[] pools;
    /** Each pool's own {@code WorkerPool} document as UTF-8. */
    byte[][] yaml;

    @Setup(Level.Trial)
    public void generate() {
        Random random = new Random(20_260_101L);
        SpecLoader loader = new SpecLoader();
        pools = new ResolvedPool[POOLS];
        yaml = new byte[POOLS][];
        for (int i = 0; i < POOLS; i++) {
            RandomSpecs.Spec spec = RandomSpecs.generate(random, "cluster-" + i, "pool-" + i);
            LoadResult result = loader.load(spec.files());
            if (!result.errors().isEmpty()) {
                throw new IllegalStateException("generated spec " + i + " does not load: " + result.errors() + "\n" + spec);
            }
            List<ResolvedPool> resolved = result.specs().resolvedPools(spec.clusterName());
            if (resolved.size() != 1) {
                throw new IllegalStateException("generated spec " + i + " has " + resolved.size() + " pools");
            }
            pools[i] = resolved.get(0);
            yaml[i] = spec.poolYaml().getBytes(StandardCharsets.UTF_8);
        }
    }

    /** Roll and kubelet hash of every pool, as the agent computes them on each reconcile. */
    @Benchmark
    public void hashes(Blackhole blackhole) {
        for (ResolvedPool pool : pools) {
            blackhole.consume(HashScheme.ROLL.compute(pool));
            blackhole.consume(HashScheme.KUBELET.compute(pool));
        }
    }

    /** One SHA-256 per pool over its YAML bytes, a new digest each time as {@link HashScheme} uses. */
    @Benchmark
    public void rawSha256(Blackhole blackhole) throws NoSuchAlgorithmException {
        for (byte[] bytes : yaml) {
            blackhole.consume(MessageDigest.getInstance("SHA-256").digest(bytes));
        }
    }
}
