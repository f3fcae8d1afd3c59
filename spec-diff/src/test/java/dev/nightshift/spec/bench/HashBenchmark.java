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
import org.openjdk.jmh.annotations.Param;
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
 * Cost of both pool hashes over 10,000 generated pools (one cluster each; see {@link #pools}),
 * against a plain SHA-256 of each pool's YAML document as the floor. Not a test: run on demand
 * from the repository root with {@code mvn -B -pl spec-diff -Pbench test-compile exec:exec}
 * (spec-diff needs no other module, so nothing has to be installed first), or quicker with
 * {@code -Dbench.args="HashBenchmark -wi 1 -i 2 -f 1"}. Three forks by default: on a shared
 * machine one fork's figure moves with the load.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 5, time = 2, timeUnit = TimeUnit.SECONDS)
@Fork(3)
public class HashBenchmark {

    /**
     * How many pools; {@code -p pools=1000} shows the same code when the pools' models fit in the
     * processor's cache, which 10,000 do not.
     */
    @Param("10000")
    public int pools;

    /** Every pool, loaded and validated like the agent loads them. */
    ResolvedPool[] resolvedPools;
    /** Each pool's own {@code WorkerPool} document as UTF-8. */
    byte[][] yaml;
    /** A SHA-256 digest never updated, cloned for every pool. */
    MessageDigest prototype;

    @Setup(Level.Trial)
    public void generate() {
        Random random = new Random(20_260_101L);
        SpecLoader loader = new SpecLoader();
        try {
            prototype = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
        resolvedPools = new ResolvedPool[pools];
        yaml = new byte[pools][];
        for (int i = 0; i < pools; i++) {
            RandomSpecs.Spec spec = RandomSpecs.generate(random, "cluster-" + i, "pool-" + i);
            LoadResult result = loader.load(spec.files());
            if (!result.errors().isEmpty()) {
                throw new IllegalStateException("generated spec " + i + " does not load: " + result.errors() + "\n" + spec);
            }
            List<ResolvedPool> resolved = result.specs().resolvedPools(spec.clusterName());
            if (resolved.size() != 1) {
                throw new IllegalStateException("generated spec " + i + " has " + resolved.size() + " pools");
            }
            resolvedPools[i] = resolved.get(0);
            yaml[i] = spec.poolYaml().getBytes(StandardCharsets.UTF_8);
        }
    }

    /** Roll and kubelet hash of every pool, as the agent computes them on each reconcile. */
    @Benchmark
    public void hashes(Blackhole blackhole) {
        for (ResolvedPool pool : resolvedPools) {
            blackhole.consume(HashScheme.ROLL.compute(pool));
            blackhole.consume(HashScheme.KUBELET.compute(pool));
        }
    }

    /**
     * One SHA-256 per pool over its YAML bytes, with a digest got the way {@link HashScheme} gets its
     * own: a clone of a prototype made once, not a provider look-up per pool, so that the floor is
     * as cheap as the code it is compared with may be.
     */
    @Benchmark
    public void rawSha256(Blackhole blackhole) throws CloneNotSupportedException {
        for (byte[] bytes : yaml) {
            blackhole.consume(((MessageDigest) prototype.clone()).digest(bytes));
        }
    }
}
