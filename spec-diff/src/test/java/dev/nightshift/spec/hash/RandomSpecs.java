package dev.nightshift.spec.hash;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.StringJoiner;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.IntStream;

import dev.nightshift.spec.diff.PoolAction;
import dev.nightshift.spec.model.DurationText;

/**
 * Random valid specs (one {@code Cluster}, one {@code WorkerPool}) for property tests and the
 * benchmark. A spec is a tree of maps, lists and typed leaves; {@link Spec#files(Random)} writes it
 * as YAML, either plainly or reformatted at random (key order, quoting, flow or block style,
 * comments, indentation, equivalent spellings of quantities, numbers and durations, one file or
 * two) without changing what it means. {@link Spec#change(RollInput, Random)} and
 * {@link Spec#change(OtherField, Random)} change exactly one field, keeping the spec valid.
 */
public final class RandomSpecs {

    public static final String API_VERSION = "nightshift.dev/v1alpha1";

    private RandomSpecs() {
    }

    // ---- typed leaves ---------------------------------------------------------------------------

    /** A string, written plain only when YAML reads it back as the same string. */
    public record Str(String text) {
    }

    /** A Kubernetes quantity; {@code amount} in base units (cores, bytes or a count). */
    public record Qty(BigDecimal amount, Unit unit) {
    }

    public enum Unit { CORES, BYTES, COUNT }

    /** A YAML number (only in providerConfig, where its spelling must not matter). */
    public record Num(BigDecimal value) {
    }

    /** A YAML integer field such as minimum. */
    public record Int(int value) {
    }

    public record Bool(boolean value) {
    }

    public record Dur(Duration value) {
    }

    static Qty millicores(long m) {
        return new Qty(BigDecimal.valueOf(m).movePointLeft(3), Unit.CORES);
    }

    static Qty mebibytes(long mi) {
        return new Qty(BigDecimal.valueOf(mi).multiply(BigDecimal.valueOf(1L << 20)), Unit.BYTES);
    }

    static Qty count(long n) {
        return new Qty(BigDecimal.valueOf(n), Unit.COUNT);
    }

    // ---- the changes ----------------------------------------------------------------------------

    /** A roll-hash input, with the path its reason carries. */
    public enum RollInput {
        KUBERNETES_MINOR("spec.kubernetes.version(minor)"),
        IMAGE_NAME("spec.machine.image.name"),
        IMAGE_VERSION("spec.machine.image.version"),
        MACHINE_TYPE("spec.machine.type"),
        VOLUME_TYPE("spec.volume.type"),
        VOLUME_SIZE("spec.volume.size"),
        PROVIDER_CONFIG("spec.providerConfig"),
        CRI("spec.cri.name"),
        NODE_LOCAL_DNS("cluster.spec.systemComponents.nodeLocalDNS.enabled"),
        CA_ROTATION("cluster.spec.credentials.rotation.certificateAuthorities.lastInitiationTime"),
        SERVICE_ACCOUNT_KEY_ROTATION("cluster.spec.credentials.rotation.serviceAccountKey.lastInitiationTime"),
        RESERVED_SUM("spec.kubernetes.kubelet.kubeReserved+systemReserved"),
        EVICTION_HARD("spec.kubernetes.kubelet.evictionHard"),
        CPU_MANAGER_POLICY("spec.kubernetes.kubelet.cpuManagerPolicy");

        public final String reasonPath;

        RollInput(String reasonPath) {
            this.reasonPath = reasonPath;
        }
    }

    /** A field outside the roll hash, with the action a change of it alone must give. */
    public enum OtherField {
        LABELS(PoolAction.PROPAGATE),
        TAINTS(PoolAction.PROPAGATE),
        /** An annotation copied to the nodes (not under {@code nightshift.dev/}). */
        ANNOTATIONS(PoolAction.PROPAGATE),
        /** A control annotation ({@code nightshift.dev/…}): instructs Nightshift, never copied to the nodes. */
        CONTROL_ANNOTATIONS(PoolAction.NONE),
        MINIMUM_MAXIMUM(PoolAction.NONE),
        LIMITS(PoolAction.NONE),
        INTERVAL(PoolAction.NONE),
        TIMEOUTS(PoolAction.NONE),
        DRAIN_AND_TERMINATE(PoolAction.NONE),
        MIN_READY_SECONDS(PoolAction.NONE),
        STRATEGY_WITHIN_FAMILY(PoolAction.NONE),
        /** A rollout entry of another pool: the pool's rotation time is unchanged. */
        OTHER_POOLS_ROLLOUT_ENTRY(PoolAction.NONE),
        /** The cluster-wide rotation time of a rotation that lists this pool: its own entry counts. */
        SHADOWED_ROTATION_TIME(PoolAction.NONE),
        KUBELET_PATCH(PoolAction.KUBELET_RESTART),
        RESERVED_MOVE(PoolAction.KUBELET_RESTART);

        public final PoolAction action;

        OtherField(PoolAction action) {
            this.action = action;
        }

        public boolean changesKubeletHash() {
            return action == PoolAction.KUBELET_RESTART;
        }
    }

    /**
     * One change made.
     *
     * @param reasonPath the path of a reason the diff must report, or null when the change is invisible to the pool
     */
    public record Change(String what, String reasonPath) {
        @Override
        public String toString() {
            return what;
        }
    }

    // ---- generation -----------------------------------------------------------------------------

    private static final String[] MACHINE_TYPES = {"m5.large", "m5.xlarge", "c5.2xlarge", "t3.small", "n2-standard-4", "p4d.24xlarge"};
    private static final String[] IMAGES = {"gardenlinux", "ubuntu", "flatcar"};
    private static final String[] VOLUME_TYPES = {"gp3", "gp2", "io1", "pd-ssd"};
    private static final String[] CRIS = {"containerd", "docker", "cri-o"};
    private static final String[] STRATEGIES = {"AutoRollingUpdate", "Replace", "AutoInPlaceUpdate", "ManualInPlaceUpdate"};
    private static final String[] RESOURCES = {"cpu", "memory", "ephemeral-storage", "pid"};
    private static final String[] SIGNALS = {"memory.available", "nodefs.available", "imagefs.available", "nodefs.inodesFree"};
    private static final String[] OTHER_POOLS = {"other-a", "other-b", "other-c"};
    private static final String[] LABEL_KEYS = {"tier", "team", "example.com/zone", "node.kubernetes.io/role", "cost-center"};
    private static final String[] VALUES = {"web", "batch", "frontend", "v1.2", "no", "true", "123", "a_b", "ON", ""};
    private static final String[] ANNOTATION_KEYS = {"owner", "example.com/ticket", "nightshift.dev/force-in-place-update", "note"};
    private static final String[] NODE_ANNOTATION_KEYS = {"owner", "example.com/ticket", "note"};
    private static final String[] CONTROL_ANNOTATION_KEYS = {"nightshift.dev/force-in-place-update", "nightshift.dev/rollout-outside-window"};
    private static final String[] TAINT_KEYS = {"dedicated", "nvidia.com/gpu", "example.com/spot", "workload"};
    private static final String[] TAINT_EFFECTS = {"NoSchedule", "PreferNoSchedule", "NoExecute"};
    private static final String[] PROVIDER_KEYS = {"zone", "iops", "throughput", "encrypted", "tags", "subnets", "ratio", "nested", "count"};
    private static final String[] PROVIDER_STRINGS = {"eu-1a", "gp3", "subnet-123", "10", "true", "1.5", "spot", "on-demand"};
    private static final String[] SCHEDULES = {"0 0 2 ? * SAT,SUN", "0 0 1 ? * *", "0 30 3 * * ?"};
    private static final String[] MCM_DURATIONS = {"drainTimeout", "healthTimeout", "creationTimeout", "inPlaceUpdateTimeout"};
    private static final Map<String, Duration> MCM_DEFAULTS = Map.of("drainTimeout", Duration.ofHours(2),
            "healthTimeout", Duration.ofMinutes(10), "creationTimeout", Duration.ofMinutes(10), "inPlaceUpdateTimeout", Duration.ofMinutes(30));

    /** A spec for cluster {@code prod} and pool {@code web}. */
    public static Spec generate(long seed) {
        return generate(new Random(seed), "prod", "web");
    }

    public static Spec generate(Random r, String clusterName, String poolName) {
        Map<String, Object> cluster = map("apiVersion", new Str(API_VERSION), "kind", new Str("Cluster"),
                "metadata", map("name", new Str(clusterName)));
        Map<String, Object> cspec = map();
        int minor = 27 + r.nextInt(5);
        int patch = r.nextInt(13);
        Map<String, Object> k8s = map("version", new Str("1." + minor + "." + patch));
        if (r.nextInt(5) > 0) {
            k8s.put("kubelet", kubelet(r, 7));
        }
        cspec.put("kubernetes", k8s);
        if (r.nextBoolean()) {
            cspec.put("systemComponents", map("nodeLocalDNS", map("enabled", new Bool(r.nextBoolean()))));
        }
        Map<String, Object> rotation = map();
        if (r.nextInt(3) > 0) {
            rotation.put("certificateAuthorities", rotation(r, poolName));
        }
        if (r.nextBoolean()) {
            rotation.put("serviceAccountKey", rotation(r, poolName));
        }
        if (!rotation.isEmpty()) {
            cspec.put("credentials", map("rotation", rotation));
        }
        if (r.nextBoolean()) {
            cspec.put("maintenance", maintenance(r));
        }
        if (r.nextInt(4) == 0) {
            cspec.put("rollingUpdate", map("maxSurge", new Int(1), "maxUnavailable", new Int(0)));
        }
        cluster.put("spec", cspec);

        Map<String, Object> pool = map("apiVersion", new Str(API_VERSION), "kind", new Str("WorkerPool"));
        Map<String, Object> metadata = map("name", new Str(poolName), "cluster", new Str(clusterName));
        if (r.nextBoolean()) {
            metadata.put("annotations", stringMap(r, ANNOTATION_KEYS, r.nextInt(3)));
        }
        pool.put("metadata", metadata);
        Map<String, Object> spec = map();
        if (r.nextInt(4) == 0) {
            spec.put("role", new Str("bastion"));
        } else if (r.nextBoolean()) {
            spec.put("role", new Str("node"));
        }
        int minimum = r.nextInt(6);
        spec.put("minimum", new Int(minimum));
        spec.put("maximum", new Int(minimum + r.nextInt(10)));
        String strategy = pick(r, STRATEGIES);
        if (!strategy.equals("AutoRollingUpdate") || r.nextBoolean()) {
            spec.put("updateStrategy", new Str(strategy));
        }
        if (strategy.endsWith("InPlaceUpdate") && new Str("bastion").equals(spec.get("role"))) {
            // Bastions never register as nodes, so validation refuses in-place strategies for them.
            spec.put("role", new Str("node"));
        }
        limits(r, spec, strategy);
        String image = pick(r, IMAGES);
        String imageVersion = imageVersion(r);
        spec.put("machine", map("type", new Str(pick(r, MACHINE_TYPES)),
                "image", map("name", new Str(image), "version", new Str(imageVersion))));
        if (r.nextInt(10) < 7) {
            spec.put("volume", map("type", new Str(pick(r, VOLUME_TYPES)), "size", mebibytes(1024L * (10 + r.nextInt(500)))));
        }
        if (r.nextBoolean()) {
            spec.put("cri", map("name", new Str(r.nextInt(3) > 0 ? "containerd" : pick(r, CRIS))));
        }
        Map<String, Object> poolK8s = map();
        if (r.nextInt(10) < 3) {
            int m = minor - r.nextInt(4);
            int p = m == minor ? r.nextInt(patch + 1) : r.nextInt(13);
            poolK8s.put("version", new Str("1." + m + "." + p));
        }
        if (r.nextInt(10) < 3) {
            poolK8s.put("kubelet", kubelet(r, 3));
        }
        if (!poolK8s.isEmpty() || r.nextInt(10) == 0) {
            spec.put("kubernetes", poolK8s);
        }
        if (r.nextInt(10) < 7) {
            Map<String, Object> pc = map();
            int n = r.nextInt(5);
            for (int i = 0; i < n; i++) {
                pc.put(pick(r, PROVIDER_KEYS), providerValue(r, 0));
            }
            spec.put("providerConfig", pc);
        }
        if (r.nextInt(10) < 7) {
            spec.put("labels", stringMap(r, LABEL_KEYS, r.nextInt(4)));
        }
        if (r.nextBoolean()) {
            List<Object> taints = new ArrayList<>();
            for (int i = r.nextInt(3); i > 0; i--) {
                taints.add(taint(r, taints));
            }
            spec.put("taints", taints);
        }
        if (r.nextInt(10) < 4) {
            spec.put("minReadySeconds", new Int(r.nextInt(301)));
        }
        if (r.nextInt(10) < 3) {
            spec.put("progressDeadlineSeconds", new Int(400 + r.nextInt(3000)));
        }
        if (r.nextBoolean()) {
            spec.put("interval", new Dur(Duration.ofSeconds(5 + r.nextInt(600))));
        }
        if (r.nextInt(10) < 4) {
            spec.put("drainAndTerminate", new Bool(r.nextBoolean()));
        }
        if (r.nextBoolean()) {
            Map<String, Object> mcm = map();
            for (String f : MCM_DURATIONS) {
                if (r.nextBoolean()) {
                    mcm.put(f, new Dur(timeout(r)));
                }
            }
            if (r.nextBoolean()) {
                mcm.put("maxEvictRetries", new Int(r.nextInt(30)));
            }
            if (r.nextBoolean()) {
                mcm.put("onEvictionBlocked", new Str(r.nextBoolean() ? "ForceDelete" : "Wait"));
            }
            if (r.nextInt(4) == 0) {
                mcm.put("nodeConditions", new ArrayList<>(List.of(new Str("KernelDeadlock"), new Str("DiskPressure"))));
            }
            if (r.nextInt(3) == 0) {
                mcm.put("disableHealthTimeout", new Bool(r.nextBoolean()));
            }
            spec.put("machineControllerManager", mcm);
        }
        pool.put("spec", spec);

        // The catalog: the pool's image with its version and some others.
        List<Object> versions = new ArrayList<>();
        Set<String> seen = new java.util.HashSet<>();
        versions.add(catalogVersion(r, imageVersion));
        seen.add(imageVersion);
        for (int i = r.nextInt(3); i > 0; i--) {
            String v = imageVersion(r);
            if (seen.add(v)) {
                versions.add(catalogVersion(r, v));
            }
        }
        List<Object> catalog = new ArrayList<>();
        catalog.add(map("name", new Str(image), "versions", versions));
        if (r.nextBoolean()) {
            catalog.add(map("name", new Str(image.equals("flatcar") ? "ubuntu" : "flatcar"), "versions", new ArrayList<>()));
        }
        if (r.nextInt(5) > 0) {
            cspec.put("machineImages", catalog);
        }
        return new Spec(cluster, pool);
    }

    private static Map<String, Object> kubelet(Random r, int tenths) {
        Map<String, Object> k = map();
        if (r.nextInt(10) < tenths) {
            k.put("kubeReserved", reserved(r));
        }
        if (r.nextInt(10) < tenths) {
            k.put("systemReserved", reserved(r));
        }
        if (r.nextInt(10) < tenths) {
            Map<String, Object> eviction = map();
            for (int i = r.nextInt(4); i > 0; i--) {
                String signal = pick(r, SIGNALS);
                eviction.put(signal, signal.equals("memory.available") && r.nextBoolean()
                        ? mebibytes(50 + r.nextInt(500)) : new Str((1 + r.nextInt(20)) + "%"));
            }
            k.put("evictionHard", eviction);
        }
        if (r.nextInt(10) < tenths) {
            k.put("cpuManagerPolicy", new Str(r.nextBoolean() ? "none" : "static"));
        }
        return k;
    }

    private static Map<String, Object> reserved(Random r) {
        Map<String, Object> m = map();
        for (int i = r.nextInt(4); i > 0; i--) {
            String resource = pick(r, RESOURCES);
            m.put(resource, amount(r, resource));
        }
        return m;
    }

    private static Qty amount(Random r, String resource) {
        return switch (resource) {
            case "cpu" -> millicores(10L * (1 + r.nextInt(200)));
            case "memory" -> mebibytes(64L * (1 + r.nextInt(64)));
            case "ephemeral-storage" -> mebibytes(1024L * (1 + r.nextInt(20)));
            default -> count(100L * (1 + r.nextInt(50)));
        };
    }

    private static Map<String, Object> rotation(Random r, String poolName) {
        Map<String, Object> rot = map("lastInitiationTime", time(r));
        if (r.nextBoolean()) {
            List<Object> pending = new ArrayList<>();
            List<String> names = new ArrayList<>(List.of(OTHER_POOLS));
            if (r.nextBoolean()) {
                names.add(poolName);
            }
            Collections.shuffle(names, r);
            for (String n : names.subList(0, 1 + r.nextInt(names.size()))) {
                pending.add(map("name", new Str(n), "lastInitiationTime", time(r)));
            }
            rot.put("pendingWorkersRollouts", pending);
        }
        return rot;
    }

    private static Str time(Random r) {
        return new Str(Instant.ofEpochSecond(1_700_000_000L + r.nextInt(100_000_000)).toString());
    }

    private static Map<String, Object> maintenance(Random r) {
        Map<String, Object> m = map();
        if (r.nextBoolean()) {
            m.put("timeWindow", map("begin", new Str("220000+0100"), "end", new Str("230000+0100")));
        }
        List<Object> windows = new ArrayList<>();
        windows.add(map("schedule", new Str(pick(r, SCHEDULES)), "duration", new Dur(Duration.ofHours(1 + r.nextInt(6))),
                "timeZone", new Str("Europe/Berlin")));
        m.put("windows", windows);
        if (r.nextBoolean()) {
            List<Object> exclusions = new ArrayList<>();
            exclusions.add(map("start", new Str("2026-11-27T00:00:00Z"), "end", new Str("2026-11-30T23:59:59Z"),
                    "reason", new Str("sales freeze")));
            m.put("exclusions", exclusions);
        }
        if (r.nextBoolean()) {
            m.put("confineSpecUpdateRollout", new Bool(r.nextBoolean()));
        }
        return m;
    }

    private static void limits(Random r, Map<String, Object> spec, String strategy) {
        Object surge;
        Object unavailable;
        if (strategy.equals("ManualInPlaceUpdate")) {
            surge = new Int(0);
            unavailable = pick(r, new Object[] {new Int(1), new Int(2), new Str("25%"), new Str("50%")});
        } else {
            surge = pick(r, new Object[] {new Int(0), new Int(1), new Int(2), new Str("25%")});
            unavailable = pick(r, new Object[] {new Int(0), new Int(1), new Str("25%")});
            if (surge.equals(new Int(0)) && unavailable.equals(new Int(0))) {
                unavailable = new Int(1);
            }
        }
        spec.put("maxSurge", surge);
        spec.put("maxUnavailable", unavailable);
    }

    private static String imageVersion(Random r) {
        return (1500 + r.nextInt(300)) + "." + r.nextInt(3) + "." + r.nextInt(3);
    }

    private static Map<String, Object> catalogVersion(Random r, String version) {
        Map<String, Object> v = map("version", new Str(version));
        if (r.nextInt(4) > 0) {
            Map<String, Object> inPlace = map("supported", new Bool(r.nextInt(4) > 0));
            if (r.nextBoolean()) {
                inPlace.put("minVersionForUpdate", new Str(imageVersion(r)));
            }
            v.put("inPlaceUpdates", inPlace);
        }
        if (r.nextInt(3) == 0) {
            v.put("providerImage", new Str("ami-0" + Integer.toHexString(r.nextInt(1 << 24))));
        }
        return v;
    }

    private static Map<String, Object> stringMap(Random r, String[] keys, int n) {
        Map<String, Object> m = map();
        for (int i = 0; i < n; i++) {
            m.put(pick(r, keys), new Str(pick(r, VALUES)));
        }
        return m;
    }

    private static Map<String, Object> taint(Random r, List<Object> existing) {
        while (true) {
            String key = pick(r, TAINT_KEYS);
            String effect = pick(r, TAINT_EFFECTS);
            boolean clash = existing.stream().anyMatch(t -> taintId(asMap(t)).equals(key + ":" + effect));
            if (clash) {
                continue;
            }
            Map<String, Object> t = map("key", new Str(key));
            if (r.nextInt(4) > 0) {
                t.put("value", new Str(pick(r, VALUES)));
            }
            if (!effect.equals("NoSchedule") || r.nextBoolean()) {
                t.put("effect", new Str(effect));
            }
            return t;
        }
    }

    private static String taintId(Map<String, Object> taint) {
        Object effect = taint.get("effect");
        return ((Str) taint.get("key")).text() + ":" + (effect == null ? "NoSchedule" : ((Str) effect).text());
    }

    private static Object providerValue(Random r, int depth) {
        return switch (r.nextInt(depth > 0 ? 5 : 7)) {
            case 0, 4 -> new Str(pick(r, PROVIDER_STRINGS));
            case 1 -> new Num(BigDecimal.valueOf(r.nextInt(10_001)));
            case 2 -> new Num(BigDecimal.valueOf(r.nextInt(10_000), 1 + r.nextInt(2)));
            case 3 -> new Bool(r.nextBoolean());
            case 5 -> {
                Map<String, Object> m = map();
                for (int i = 1 + r.nextInt(3); i > 0; i--) {
                    m.put(pick(r, PROVIDER_KEYS), providerValue(r, depth + 1));
                }
                yield m;
            }
            default -> {
                List<Object> l = new ArrayList<>();
                for (int i = 1 + r.nextInt(3); i > 0; i--) {
                    l.add(r.nextBoolean() ? new Str(pick(r, PROVIDER_STRINGS)) : new Num(BigDecimal.valueOf(r.nextInt(100))));
                }
                yield l;
            }
        };
    }

    private static Duration timeout(Random r) {
        return Duration.ofMinutes(1 + r.nextInt(300));
    }

    // ---- the spec ---------------------------------------------------------------------------------

    /** One cluster and one pool; mutable, so that a change is made on a {@link #copy()}. */
    public static final class Spec {

        private final Map<String, Object> cluster;
        private final Map<String, Object> pool;

        private Spec(Map<String, Object> cluster, Map<String, Object> pool) {
            this.cluster = cluster;
            this.pool = pool;
        }

        public Spec copy() {
            return new Spec(asMap(deepCopy(cluster)), asMap(deepCopy(pool)));
        }

        public String clusterName() {
            return text(cluster, "metadata", "name");
        }

        public String poolName() {
            return text(pool, "metadata", "name");
        }

        /** The plain form: one file, block style, natural key order, no comments, first spelling of everything. */
        public Map<String, byte[]> files() {
            return files(null);
        }

        /** Written with every choice of form taken from {@code style}; plainly when it is null. */
        public Map<String, byte[]> files(Random style) {
            String c = new Emitter(style).document(cluster);
            String p = new Emitter(style).document(pool);
            Map<String, byte[]> files = new TreeMap<>();
            if (style != null && style.nextBoolean()) {
                files.put("cluster.yaml", utf8(c));
                files.put("pools/" + poolName() + ".yml", utf8(p));
            } else {
                String start = style != null && style.nextBoolean() ? "---\n" : "";
                boolean poolFirst = style != null && style.nextBoolean();
                files.put("spec.yaml", utf8(start + (poolFirst ? p + "---\n" + c : c + "---\n" + p)));
            }
            return files;
        }

        /** The pool's own document, plainly written. */
        public String poolYaml() {
            return new Emitter(null).document(pool);
        }

        public String clusterYaml() {
            return new Emitter(null).document(cluster);
        }

        @Override
        public String toString() {
            return clusterYaml() + "---\n" + poolYaml();
        }

        // ---- roll-hash inputs ----

        /** Changes one roll-hash input of the pool, directly or through what it inherits. */
        public Change change(RollInput input, Random r) {
            return switch (input) {
                case KUBERNETES_MINOR -> kubernetesMinor(r);
                case IMAGE_NAME -> replace(pool, r, IMAGES, input, "spec", "machine", "image", "name");
                case IMAGE_VERSION -> {
                    String old = text(pool, "spec", "machine", "image", "version");
                    int dot = old.indexOf('.');
                    String v = (Integer.parseInt(old.substring(0, dot)) + 1 + r.nextInt(50)) + old.substring(dot);
                    put(pool, new Str(v), "spec", "machine", "image", "version");
                    yield new Change("image version " + old + " -> " + v, input.reasonPath);
                }
                case MACHINE_TYPE -> replace(pool, r, MACHINE_TYPES, input, "spec", "machine", "type");
                case VOLUME_TYPE -> {
                    if (get(pool, "spec", "volume") == null) {
                        yield addVolume(r, input);
                    }
                    yield replace(pool, r, VOLUME_TYPES, input, "spec", "volume", "type");
                }
                case VOLUME_SIZE -> {
                    Qty old = (Qty) get(pool, "spec", "volume", "size");
                    if (old == null) {
                        yield addVolume(r, input);
                    }
                    Qty size = new Qty(old.amount().add(mebibytes(1024L * (1 + r.nextInt(100))).amount()), Unit.BYTES);
                    put(pool, size, "spec", "volume", "size");
                    yield new Change("volume size " + old.amount() + " -> " + size.amount(), input.reasonPath);
                }
                case PROVIDER_CONFIG -> providerConfig(r);
                case CRI -> {
                    String old = Optional.ofNullable(text(pool, "spec", "cri", "name")).orElse("containerd");
                    String cri = other(r, CRIS, old);
                    put(pool, new Str(cri), "spec", "cri", "name");
                    yield new Change("cri " + old + " -> " + cri, input.reasonPath);
                }
                case NODE_LOCAL_DNS -> {
                    Bool old = (Bool) get(cluster, "spec", "systemComponents", "nodeLocalDNS", "enabled");
                    boolean now = old == null || !old.value();
                    put(cluster, new Bool(now), "spec", "systemComponents", "nodeLocalDNS", "enabled");
                    yield new Change("nodeLocalDNS " + (old == null ? "(unset)" : old.value()) + " -> " + now, input.reasonPath);
                }
                case CA_ROTATION -> rotationTime(r, "certificateAuthorities", input);
                case SERVICE_ACCOUNT_KEY_ROTATION -> rotationTime(r, "serviceAccountKey", input);
                case RESERVED_SUM -> {
                    String field = r.nextBoolean() ? "kubeReserved" : "systemReserved";
                    String resource = pick(r, RESOURCES);
                    Qty delta = amount(r, resource);
                    Change c = editKubelet(r, field, input, m -> {
                        Qty old = (Qty) m.get(resource);
                        m.put(resource, old == null ? delta : new Qty(old.amount().add(delta.amount()), old.unit()));
                    });
                    yield new Change(c.what() + ": " + resource + " + " + delta.amount(), c.reasonPath());
                }
                case EVICTION_HARD -> editKubelet(r, "evictionHard", input, m -> {
                    List<String> present = new ArrayList<>(m.keySet());
                    if (present.isEmpty() || r.nextInt(3) == 0) {
                        String signal = other(r, SIGNALS, present);
                        if (signal != null) {
                            m.put(signal, new Str((1 + r.nextInt(20)) + "%"));
                            return;
                        }
                    }
                    String signal = present.get(r.nextInt(present.size()));
                    Object old = m.get(signal);
                    if (old instanceof Qty q) {
                        m.put(signal, new Qty(q.amount().add(mebibytes(1 + r.nextInt(100)).amount()), Unit.BYTES));
                    } else {
                        String pct = ((Str) old).text();
                        int n = Integer.parseInt(pct.substring(0, pct.length() - 1));
                        m.put(signal, new Str((n + 1 + r.nextInt(20)) + "%"));
                    }
                });
                case CPU_MANAGER_POLICY -> {
                    Object effective = effectiveKubelet("cpuManagerPolicy");
                    String now = effective != null && ((Str) effective).text().equals("static") ? "none" : "static";
                    Map<String, Object> holder = poolSets("cpuManagerPolicy") || r.nextBoolean()
                            ? mapAt(pool, "spec", "kubernetes", "kubelet") : mapAt(cluster, "spec", "kubernetes", "kubelet");
                    holder.put("cpuManagerPolicy", new Str(now));
                    yield new Change("cpuManagerPolicy " + (effective == null ? "(unset)" : ((Str) effective).text()) + " -> " + now
                            + (holder == get(pool, "spec", "kubernetes", "kubelet") ? " (pool)" : " (cluster)"), input.reasonPath);
                }
            };
        }

        private Change kubernetesMinor(Random r) {
            int cm = clusterMinor();
            String pv = text(pool, "spec", "kubernetes", "version");
            if (pv == null && r.nextBoolean()) {
                String old = clusterVersion();
                setClusterVersion(cm + 1, r.nextInt(5));
                return new Change("cluster Kubernetes " + old + " -> " + clusterVersion() + " (pool inherits)", RollInput.KUBERNETES_MINOR.reasonPath);
            }
            int current = pv == null ? cm : Integer.parseInt(pv.split("\\.")[1]);
            List<Integer> options = IntStream.rangeClosed(cm - 3, cm).filter(m -> m != current).boxed().toList();
            int m = options.get(r.nextInt(options.size()));
            int p = m == cm ? r.nextInt(clusterPatch() + 1) : r.nextInt(13);
            String v = "1." + m + "." + p;
            put(pool, new Str(v), "spec", "kubernetes", "version");
            return new Change("pool Kubernetes " + (pv == null ? "(inherits " + clusterVersion() + ")" : pv) + " -> " + v,
                    RollInput.KUBERNETES_MINOR.reasonPath);
        }

        private Change addVolume(Random r, RollInput input) {
            put(pool, map("type", new Str(pick(r, VOLUME_TYPES)), "size", mebibytes(1024L * (10 + r.nextInt(100)))), "spec", "volume");
            return new Change("volume added", input.reasonPath);
        }

        private Change providerConfig(Random r) {
            Map<String, Object> pc = asMap(get(pool, "spec", "providerConfig"));
            String path = RollInput.PROVIDER_CONFIG.reasonPath;
            if (pc == null || pc.isEmpty() || r.nextInt(4) == 0) {
                Map<String, Object> target = mapAt(pool, "spec", "providerConfig");
                String key = freshKey(target, r);
                Object value = providerValue(r, 0);
                target.put(key, value);
                return new Change("providerConfig adds " + key, path);
            }
            List<String> keys = new ArrayList<>(pc.keySet());
            String key = keys.get(r.nextInt(keys.size()));
            if (r.nextInt(3) == 0) {
                pc.remove(key);
                return new Change("providerConfig removes " + key, path);
            }
            pc.put(key, changed(pc.get(key), r));
            return new Change("providerConfig changes " + key, path);
        }

        private Change rotationTime(Random r, String name, RollInput input) {
            Map<String, Object> rot = asMap(get(cluster, "spec", "credentials", "rotation", name));
            if (rot == null) {
                put(cluster, map("lastInitiationTime", time(r)), "spec", "credentials", "rotation", name);
                return new Change(name + " rotation started", input.reasonPath);
            }
            Map<String, Object> own = ownRolloutEntry(rot);
            if (own != null) {
                String old = ((Str) own.get("lastInitiationTime")).text();
                own.put("lastInitiationTime", laterThan(old, r));
                return new Change(name + " entry of this pool in pendingWorkersRollouts " + old + " -> " + own.get("lastInitiationTime"), input.reasonPath);
            }
            String old = ((Str) rot.get("lastInitiationTime")).text();
            if (r.nextBoolean()) {
                rot.put("lastInitiationTime", laterThan(old, r));
                return new Change(name + " lastInitiationTime " + old + " -> " + rot.get("lastInitiationTime"), input.reasonPath);
            }
            List<Object> pending = asList(rot.computeIfAbsent("pendingWorkersRollouts", k -> new ArrayList<>()));
            pending.add(r.nextInt(pending.size() + 1), map("name", new Str(poolName()), "lastInitiationTime", laterThan(old, r)));
            return new Change(name + " pendingWorkersRollouts gains this pool", input.reasonPath);
        }

        private Map<String, Object> ownRolloutEntry(Map<String, Object> rot) {
            List<Object> pending = asList(rot.get("pendingWorkersRollouts"));
            if (pending == null) {
                return null;
            }
            return pending.stream().map(RandomSpecs::asMap).filter(e -> ((Str) e.get("name")).text().equals(poolName()))
                    .findFirst().orElse(null);
        }

        /**
         * Edits the effective value of a kubelet map field: where the pool sets it, the pool's;
         * otherwise the cluster's or, at random, a new pool override starting from the cluster's value.
         */
        private Change editKubelet(Random r, String field, RollInput input, java.util.function.Consumer<Map<String, Object>> edit) {
            String where;
            Map<String, Object> target;
            if (poolSets(field)) {
                target = asMap(get(pool, "spec", "kubernetes", "kubelet", field));
                where = "pool's " + field;
            } else if (r.nextBoolean()) {
                Object inherited = get(cluster, "spec", "kubernetes", "kubelet", field);
                target = inherited == null ? map() : asMap(deepCopy(inherited));
                mapAt(pool, "spec", "kubernetes", "kubelet").put(field, target);
                where = "new pool override of " + field;
            } else {
                target = mapAt(cluster, "spec", "kubernetes", "kubelet", field);
                where = "cluster's " + field;
            }
            edit.accept(target);
            return new Change(where + " edited", input.reasonPath);
        }

        // ---- other fields ----

        /** Changes one field outside the roll hash; empty when this spec offers no such change. */
        public Optional<Change> change(OtherField field, Random r) {
            Map<String, Object> spec = asMap(pool.get("spec"));
            switch (field) {
                case LABELS -> {
                    return Optional.of(editStringMap(mapAt(pool, "spec", "labels"), LABEL_KEYS, "spec.labels.", r));
                }
                case ANNOTATIONS -> {
                    return Optional.of(editStringMap(mapAt(pool, "metadata", "annotations"), NODE_ANNOTATION_KEYS,
                            k -> !k.startsWith("nightshift.dev/"), "", "metadata.annotations.", r));
                }
                case CONTROL_ANNOTATIONS -> {
                    return Optional.of(editStringMap(mapAt(pool, "metadata", "annotations"), CONTROL_ANNOTATION_KEYS,
                            k -> k.startsWith("nightshift.dev/"), "nightshift.dev/", "metadata.annotations.", r));
                }
                case TAINTS -> {
                    List<Object> taints = asList(spec.computeIfAbsent("taints", k -> new ArrayList<>()));
                    int choice = taints.isEmpty() ? 0 : r.nextInt(3);
                    if (choice == 0) {
                        Map<String, Object> t = taint(r, taints);
                        taints.add(r.nextInt(taints.size() + 1), t);
                        return Optional.of(new Change("taint added " + taintId(t), "spec.taints." + taintId(t)));
                    }
                    Map<String, Object> t = asMap(taints.get(r.nextInt(taints.size())));
                    if (choice == 1) {
                        taints.remove(t);
                        return Optional.of(new Change("taint removed " + taintId(t), "spec.taints." + taintId(t)));
                    }
                    Str old = (Str) t.get("value");
                    t.put("value", new Str(old == null ? "set" : old.text() + "x"));
                    return Optional.of(new Change("taint value changed " + taintId(t), "spec.taints." + taintId(t)));
                }
                case MINIMUM_MAXIMUM -> {
                    int min = ((Int) spec.get("minimum")).value();
                    int max = ((Int) spec.get("maximum")).value();
                    if (max == 0 || r.nextBoolean()) {
                        spec.put("maximum", new Int(max + 1 + r.nextInt(5)));
                        return Optional.of(new Change("maximum " + max + " -> " + spec.get("maximum"), "spec.maximum"));
                    }
                    int now = (min + 1 + r.nextInt(max)) % (max + 1);
                    spec.put("minimum", new Int(now));
                    return Optional.of(new Change("minimum " + min + " -> " + now, "spec.minimum"));
                }
                case LIMITS -> {
                    boolean manual = "ManualInPlaceUpdate".equals(text(pool, "spec", "updateStrategy"));
                    String key = manual || r.nextBoolean() ? "maxUnavailable" : "maxSurge";
                    Object[] options = manual ? new Object[] {new Int(1), new Int(2), new Str("25%"), new Str("50%")}
                            : new Object[] {new Int(0), new Int(1), new Int(2), new Int(3), new Str("25%"), new Str("50%")};
                    String otherKey = key.equals("maxSurge") ? "maxUnavailable" : "maxSurge";
                    boolean otherZero = new Int(0).equals(spec.get(otherKey));
                    List<Object> allowed = new ArrayList<>();
                    for (Object o : options) {
                        if (!o.equals(spec.get(key)) && !(otherZero && o.equals(new Int(0)))) {
                            allowed.add(o);
                        }
                    }
                    Object old = spec.get(key);
                    spec.put(key, allowed.get(r.nextInt(allowed.size())));
                    return Optional.of(new Change(key + " " + show(old) + " -> " + show(spec.get(key)), "spec." + key));
                }
                case INTERVAL -> {
                    Dur old = (Dur) spec.get("interval");
                    Duration was = old == null ? Duration.ofSeconds(15) : old.value();
                    spec.put("interval", new Dur(was.plusSeconds(1 + r.nextInt(300))));
                    return Optional.of(new Change("interval " + was + " -> " + spec.get("interval"), "spec.interval"));
                }
                case TIMEOUTS -> {
                    String f = pick(r, MCM_DURATIONS);
                    Map<String, Object> mcm = mapAt(pool, "spec", "machineControllerManager");
                    Duration was = mcm.get(f) == null ? MCM_DEFAULTS.get(f) : ((Dur) mcm.get(f)).value();
                    Duration now = was.plusMinutes(1 + r.nextInt(120));
                    mcm.put(f, new Dur(now));
                    return Optional.of(new Change(f + " " + was + " -> " + now, "spec.machineControllerManager." + f));
                }
                case DRAIN_AND_TERMINATE -> {
                    Bool old = (Bool) spec.get("drainAndTerminate");
                    boolean now = old != null && !old.value();
                    spec.put("drainAndTerminate", new Bool(now));
                    return Optional.of(new Change("drainAndTerminate -> " + now, "spec.drainAndTerminate"));
                }
                case MIN_READY_SECONDS -> {
                    Int old = (Int) spec.get("minReadySeconds");
                    int was = old == null ? 0 : old.value();
                    int now = (was + 1 + r.nextInt(300)) % 301;
                    spec.put("minReadySeconds", new Int(now));
                    return Optional.of(new Change("minReadySeconds " + was + " -> " + now, "spec.minReadySeconds"));
                }
                case STRATEGY_WITHIN_FAMILY -> {
                    String old = Optional.ofNullable(text(pool, "spec", "updateStrategy")).orElse("AutoRollingUpdate");
                    String now = switch (old) {
                        case "AutoRollingUpdate" -> "Replace";
                        case "Replace" -> "AutoRollingUpdate";
                        case "AutoInPlaceUpdate" -> "ManualInPlaceUpdate";
                        default -> "AutoInPlaceUpdate";
                    };
                    spec.put("updateStrategy", new Str(now));
                    if (now.equals("ManualInPlaceUpdate")) {
                        spec.put("maxSurge", new Int(0));
                        if (new Int(0).equals(spec.get("maxUnavailable"))) {
                            spec.put("maxUnavailable", new Int(1));
                        }
                    }
                    return Optional.of(new Change("updateStrategy " + old + " -> " + now, "spec.updateStrategy"));
                }
                case OTHER_POOLS_ROLLOUT_ENTRY -> {
                    List<String> rotations = existingRotations();
                    if (rotations.isEmpty()) {
                        return Optional.empty();
                    }
                    String name = rotations.get(r.nextInt(rotations.size()));
                    Map<String, Object> rot = asMap(get(cluster, "spec", "credentials", "rotation", name));
                    List<Object> pending = asList(rot.computeIfAbsent("pendingWorkersRollouts", k -> new ArrayList<>()));
                    String other = pick(r, OTHER_POOLS);
                    Map<String, Object> entry = pending.stream().map(RandomSpecs::asMap)
                            .filter(e -> ((Str) e.get("name")).text().equals(other)).findFirst().orElse(null);
                    if (entry == null) {
                        pending.add(map("name", new Str(other), "lastInitiationTime", time(r)));
                        return Optional.of(new Change(name + " pendingWorkersRollouts gains " + other, null));
                    }
                    entry.put("lastInitiationTime", laterThan(((Str) entry.get("lastInitiationTime")).text(), r));
                    return Optional.of(new Change(name + " entry of " + other + " changed", null));
                }
                case SHADOWED_ROTATION_TIME -> {
                    for (String name : existingRotations()) {
                        Map<String, Object> rot = asMap(get(cluster, "spec", "credentials", "rotation", name));
                        if (ownRolloutEntry(rot) != null) {
                            rot.put("lastInitiationTime", laterThan(((Str) rot.get("lastInitiationTime")).text(), r));
                            return Optional.of(new Change(name + " lastInitiationTime changed while this pool has its own entry", null));
                        }
                    }
                    return Optional.empty();
                }
                case KUBELET_PATCH -> {
                    int d = 1 + r.nextInt(3);
                    String old = clusterVersion();
                    setClusterVersion(clusterMinor(), clusterPatch() + d);
                    String pv = text(pool, "spec", "kubernetes", "version");
                    if (pv != null) {
                        String[] parts = pv.split("\\.");
                        String now = parts[0] + "." + parts[1] + "." + (Integer.parseInt(parts[2]) + d);
                        put(pool, new Str(now), "spec", "kubernetes", "version");
                        return Optional.of(new Change("pool Kubernetes " + pv + " -> " + now + " (cluster " + old + " -> " + clusterVersion() + ")",
                                "spec.kubernetes.version"));
                    }
                    return Optional.of(new Change("cluster Kubernetes " + old + " -> " + clusterVersion(), "spec.kubernetes.version"));
                }
                case RESERVED_MOVE -> {
                    return reservedMove(r);
                }
                default -> throw new IllegalArgumentException(field.name());
            }
        }

        private Optional<Change> reservedMove(Random r) {
            Map<String, Object> kube = asMap(effectiveKubelet("kubeReserved"));
            Map<String, Object> system = asMap(effectiveKubelet("systemReserved"));
            List<String[]> candidates = new ArrayList<>();
            for (String[] dir : new String[][] {{"kubeReserved", "systemReserved"}, {"systemReserved", "kubeReserved"}}) {
                Map<String, Object> from = dir[0].equals("kubeReserved") ? kube : system;
                if (from == null) {
                    continue;
                }
                from.forEach((resource, q) -> {
                    if (((Qty) q).amount().signum() > 0) {
                        candidates.add(new String[] {dir[0], dir[1], resource});
                    }
                });
            }
            if (candidates.isEmpty()) {
                return Optional.empty();
            }
            String[] c = candidates.get(r.nextInt(candidates.size()));
            Map<String, Object> from = asMap(kubeletHolder(c[0]).get(c[0]));
            Map<String, Object> to = asMap(kubeletHolder(c[1]).computeIfAbsent(c[1], k -> map()));
            Qty source = (Qty) from.get(c[2]);
            Qty moved = portion(source, r);
            from.put(c[2], new Qty(source.amount().subtract(moved.amount()), source.unit()));
            Qty dest = (Qty) to.get(c[2]);
            to.put(c[2], dest == null ? moved : new Qty(dest.amount().add(moved.amount()), dest.unit()));
            return Optional.of(new Change("moved " + moved.amount() + " of " + c[2] + " from " + c[0] + " to " + c[1],
                    "spec.kubernetes.kubelet." + c[0]));
        }

        private static Qty portion(Qty q, Random r) {
            return switch (q.unit()) {
                case CORES -> millicores(1 + r.nextInt(q.amount().movePointRight(3).intValueExact()));
                case BYTES -> mebibytes(1 + r.nextInt(q.amount().divide(BigDecimal.valueOf(1L << 20)).intValueExact()));
                case COUNT -> count(1 + r.nextInt(q.amount().intValueExact()));
            };
        }

        private List<String> existingRotations() {
            List<String> names = new ArrayList<>();
            for (String n : List.of("certificateAuthorities", "serviceAccountKey")) {
                if (get(cluster, "spec", "credentials", "rotation", n) != null) {
                    names.add(n);
                }
            }
            return names;
        }

        private Change editStringMap(Map<String, Object> m, String[] keys, String path, Random r) {
            return editStringMap(m, keys, k -> true, "", path, r);
        }

        /** Adds, removes or changes one of the keys {@code editable} accepts; a fresh key starts with {@code freshPrefix}. */
        private Change editStringMap(Map<String, Object> m, String[] keys, java.util.function.Predicate<String> editable,
                                     String freshPrefix, String path, Random r) {
            List<String> present = new ArrayList<>(m.keySet().stream().filter(editable).toList());
            int choice = present.isEmpty() ? 0 : r.nextInt(3);
            if (choice == 0) {
                String key = other(r, keys, new ArrayList<>(m.keySet()));
                if (key == null) {
                    key = freshPrefix + freshKey(m, r);
                }
                m.put(key, new Str(pick(r, VALUES)));
                return new Change(path + key + " added", path + key);
            }
            String key = present.get(r.nextInt(present.size()));
            if (choice == 1) {
                m.remove(key);
                return new Change(path + key + " removed", path + key);
            }
            String old = ((Str) m.get(key)).text();
            m.put(key, new Str(old + "-x"));
            return new Change(path + key + " changed", path + key);
        }

        // ---- helpers ----

        private boolean poolSets(String kubeletField) {
            Map<String, Object> pk = asMap(get(pool, "spec", "kubernetes", "kubelet"));
            return pk != null && pk.containsKey(kubeletField);
        }

        private Object effectiveKubelet(String field) {
            return poolSets(field) ? get(pool, "spec", "kubernetes", "kubelet", field) : get(cluster, "spec", "kubernetes", "kubelet", field);
        }

        private Map<String, Object> kubeletHolder(String field) {
            return poolSets(field) ? mapAt(pool, "spec", "kubernetes", "kubelet") : mapAt(cluster, "spec", "kubernetes", "kubelet");
        }

        private String clusterVersion() {
            return text(cluster, "spec", "kubernetes", "version");
        }

        private int clusterMinor() {
            return Integer.parseInt(clusterVersion().split("\\.")[1]);
        }

        private int clusterPatch() {
            return Integer.parseInt(clusterVersion().split("\\.")[2]);
        }

        private void setClusterVersion(int minor, int patch) {
            put(cluster, new Str("1." + minor + "." + patch), "spec", "kubernetes", "version");
        }

        private static Change replace(Map<String, Object> root, Random r, String[] options, RollInput input, String... path) {
            String old = text(root, path);
            String now = other(r, options, old);
            put(root, new Str(now), path);
            return new Change(String.join(".", path) + " " + old + " -> " + now, input.reasonPath);
        }
    }

    private static Str laterThan(String instant, Random r) {
        return new Str(Instant.parse(instant).plusSeconds(1 + r.nextInt(10_000_000)).toString());
    }

    private static Object changed(Object v, Random r) {
        if (v instanceof Str s) {
            return new Str(s.text() + "-x");
        }
        if (v instanceof Num n) {
            return new Num(n.value().add(BigDecimal.ONE));
        }
        if (v instanceof Bool b) {
            return new Bool(!b.value());
        }
        if (v instanceof Map<?, ?> m) {
            Map<String, Object> c = asMap(deepCopy(m));
            if (c.isEmpty() || r.nextBoolean()) {
                c.put(freshKey(c, r), new Str("added"));
            } else {
                List<String> keys = new ArrayList<>(c.keySet());
                String k = keys.get(r.nextInt(keys.size()));
                c.put(k, changed(c.get(k), r));
            }
            return c;
        }
        List<Object> c = asList(deepCopy(v));
        c.add(new Str("extra"));
        return c;
    }

    private static String freshKey(Map<String, Object> m, Random r) {
        String key;
        do {
            key = "k" + r.nextInt(1000);
        } while (m.containsKey(key));
        return key;
    }

    private static String show(Object v) {
        if (v instanceof Int i) {
            return Integer.toString(i.value());
        }
        return v instanceof Str s ? s.text() : String.valueOf(v);
    }

    // ---- tree access ------------------------------------------------------------------------------

    static Map<String, Object> map(Object... keysAndValues) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            m.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return m;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> asMap(Object o) {
        return (Map<String, Object>) o;
    }

    @SuppressWarnings("unchecked")
    static List<Object> asList(Object o) {
        return (List<Object>) o;
    }

    static Object get(Map<String, Object> root, String... path) {
        Object cur = root;
        for (String k : path) {
            if (!(cur instanceof Map<?, ?> m)) {
                return null;
            }
            cur = m.get(k);
            if (cur == null) {
                return null;
            }
        }
        return cur;
    }

    static String text(Map<String, Object> root, String... path) {
        Object v = get(root, path);
        return v == null ? null : ((Str) v).text();
    }

    static Map<String, Object> mapAt(Map<String, Object> root, String... path) {
        Map<String, Object> cur = root;
        for (String k : path) {
            cur = asMap(cur.computeIfAbsent(k, x -> new LinkedHashMap<String, Object>()));
        }
        return cur;
    }

    static void put(Map<String, Object> root, Object value, String... path) {
        mapAt(root, java.util.Arrays.copyOf(path, path.length - 1)).put(path[path.length - 1], value);
    }

    static Object deepCopy(Object o) {
        if (o instanceof Map<?, ?> m) {
            Map<String, Object> c = new LinkedHashMap<>();
            m.forEach((k, v) -> c.put((String) k, deepCopy(v)));
            return c;
        }
        if (o instanceof List<?> l) {
            List<Object> c = new ArrayList<>();
            l.forEach(v -> c.add(deepCopy(v)));
            return c;
        }
        return o;
    }

    private static <T> T pick(Random r, T[] options) {
        return options[r.nextInt(options.length)];
    }

    private static String other(Random r, String[] options, String not) {
        String v;
        do {
            v = pick(r, options);
        } while (v.equals(not));
        return v;
    }

    /** An option not in {@code present}, or null when there is none. */
    private static String other(Random r, String[] options, List<String> present) {
        List<String> free = new ArrayList<>(List.of(options));
        free.removeAll(present);
        return free.isEmpty() ? null : free.get(r.nextInt(free.size()));
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    // ---- writing YAML -----------------------------------------------------------------------------

    private static final Pattern PLAIN = Pattern.compile("[A-Za-z][A-Za-z0-9._/-]*|[0-9]+\\.[0-9]+\\.[0-9]+");
    private static final Set<String> YAML11_WORDS = Set.of("y", "n", "yes", "no", "true", "false", "on", "off", "null");
    private static final String[] COMMENTS = {"note", "keep in sync with the runbook", "todo: check", "see README", "ops: do not edit"};

    static boolean plainSafe(String s) {
        return PLAIN.matcher(s).matches() && !YAML11_WORDS.contains(s.toLowerCase(Locale.ROOT));
    }

    /** Every spelling of a quantity that denotes its amount, the plain one first. */
    static List<String> spellings(Qty q) {
        List<String> out = new ArrayList<>();
        switch (q.unit()) {
            case CORES -> {
                long m = q.amount().movePointRight(3).longValueExact();
                out.add(m % 1000 == 0 && m > 0 ? Long.toString(m / 1000) : m + "m");
                out.add(m + "m");
                out.add(q.amount().stripTrailingZeros().toPlainString());
                out.add(m * 1000 + "u");
                out.add(m + "e-3");
            }
            case BYTES -> {
                long bytes = q.amount().longValueExact();
                long mi = bytes >> 20;
                boolean wholeMi = (bytes & ((1L << 20) - 1)) == 0;
                if (wholeMi && mi % 1024 == 0 && mi > 0) {
                    out.add(mi / 1024 + "Gi");
                }
                if (wholeMi) {
                    out.add(mi + "Mi");
                    out.add(mi * 1024 + "Ki");
                    out.add(BigDecimal.valueOf(mi).divide(BigDecimal.valueOf(1024)).stripTrailingZeros().toPlainString() + "Gi");
                }
                out.add(Long.toString(bytes));
                if (bytes % 1000 == 0) {
                    out.add(bytes / 1000 + "k");
                }
            }
            case COUNT -> {
                long n = q.amount().longValueExact();
                out.add(Long.toString(n));
                if (n % 1000 == 0 && n > 0) {
                    out.add(n / 1000 + "k");
                }
                out.add(n + "e0");
            }
        }
        return out;
    }

    static List<String> spellings(Num n) {
        BigDecimal v = n.value().stripTrailingZeros();
        String plain = v.toPlainString();
        if (v.scale() <= 0) {
            return List.of(plain, plain + ".0", plain + ".00");
        }
        return List.of(plain, plain + "0", plain + "00");
    }

    static List<String> spellings(Dur d) {
        long s = d.value().getSeconds();
        List<String> out = new ArrayList<>();
        out.add(DurationText.format(d.value()));
        out.add(s + "s");
        if (s % 60 == 0) {
            out.add(s / 60 + "m");
        }
        if (s % 3600 == 0) {
            out.add(s / 3600 + "h");
        }
        return out;
    }

    /** Writes one document; every choice of form comes from {@code r}, or is the plain one when it is null. */
    private static final class Emitter {

        private final Random r;
        private final int step;
        private final StringBuilder out = new StringBuilder();

        Emitter(Random r) {
            this.r = r;
            this.step = r != null && r.nextBoolean() ? 4 : 2;
        }

        private boolean chance(int oneIn) {
            return r != null && r.nextInt(oneIn) == 0;
        }

        private <T> T choose(List<T> options) {
            return r == null ? options.get(0) : options.get(r.nextInt(options.size()));
        }

        String document(Map<String, Object> root) {
            if (chance(2)) {
                out.append("# ").append(choose(List.of(COMMENTS))).append('\n');
            }
            blockMap(root, 0, false);
            return out.toString();
        }

        private List<String> order(Set<String> keys) {
            List<String> list = new ArrayList<>(keys);
            if (r != null) {
                Collections.shuffle(list, r);
            }
            return list;
        }

        private void blockMap(Map<String, Object> m, int indent, boolean afterDash) {
            boolean first = true;
            for (String k : order(m.keySet())) {
                if (!(afterDash && first)) {
                    commentLine(indent);
                    out.append(" ".repeat(indent));
                }
                first = false;
                out.append(key(k)).append(':');
                value(m.get(k), indent);
            }
        }

        private void value(Object v, int indent) {
            if (v instanceof Map<?, ?> m) {
                if (m.isEmpty() || chance(3)) {
                    out.append(' ').append(flow(v));
                    trailingComment();
                    out.append('\n');
                } else {
                    out.append('\n');
                    blockMap(asMap(m), indent + step, false);
                }
            } else if (v instanceof List<?> l) {
                if (l.isEmpty() || chance(3)) {
                    out.append(' ').append(flow(v));
                    trailingComment();
                    out.append('\n');
                } else {
                    out.append('\n');
                    blockList(l, r != null && r.nextBoolean() ? indent + step : indent);
                }
            } else {
                out.append(' ').append(scalar(v));
                trailingComment();
                out.append('\n');
            }
        }

        private void blockList(List<?> l, int indent) {
            for (Object item : l) {
                commentLine(indent);
                out.append(" ".repeat(indent)).append("- ");
                if (item instanceof Map<?, ?> m && !m.isEmpty() && !chance(3)) {
                    blockMap(asMap(m), indent + 2, true);
                } else {
                    out.append(flow(item));
                    trailingComment();
                    out.append('\n');
                }
            }
        }

        private String flow(Object v) {
            if (v instanceof Map<?, ?> m) {
                StringJoiner j = new StringJoiner(", ", "{", "}");
                for (String k : order(asMap(m).keySet())) {
                    j.add(key(k) + ": " + flow(m.get(k)));
                }
                return j.toString();
            }
            if (v instanceof List<?> l) {
                StringJoiner j = new StringJoiner(", ", "[", "]");
                l.forEach(item -> j.add(flow(item)));
                return j.toString();
            }
            return scalar(v);
        }

        private String scalar(Object v) {
            if (v instanceof Str s) {
                return string(s.text());
            }
            if (v instanceof Qty q) {
                return anyQuoting(choose(spellings(q)));
            }
            if (v instanceof Dur d) {
                return anyQuoting(choose(spellings(d)));
            }
            if (v instanceof Num n) {
                return choose(spellings(n));
            }
            if (v instanceof Int i) {
                return Integer.toString(i.value());
            }
            if (v instanceof Bool b) {
                return Boolean.toString(b.value());
            }
            throw new IllegalArgumentException("not a leaf: " + v);
        }

        private String key(String k) {
            return plainSafe(k) && !chance(6) ? k : (r != null && r.nextBoolean() ? single(k) : dbl(k));
        }

        /** A string field: plain only where YAML reads it back as the same string. */
        private String string(String s) {
            if (r == null) {
                return plainSafe(s) ? s : dbl(s);
            }
            int choice = r.nextInt(plainSafe(s) ? 3 : 2);
            return choice == 0 ? single(s) : choice == 1 ? dbl(s) : s;
        }

        /** A value read as text whatever YAML resolves it to (quantities, durations): any quoting. */
        private String anyQuoting(String s) {
            if (r == null) {
                return s;
            }
            int choice = r.nextInt(3);
            return choice == 0 ? single(s) : choice == 1 ? dbl(s) : s;
        }

        private static String single(String s) {
            return "'" + s.replace("'", "''") + "'";
        }

        private static String dbl(String s) {
            return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
        }

        private void commentLine(int indent) {
            if (chance(8)) {
                out.append(" ".repeat(indent)).append("# ").append(choose(List.of(COMMENTS))).append('\n');
            }
        }

        private void trailingComment() {
            if (chance(6)) {
                out.append(" # ").append(choose(List.of(COMMENTS)));
            }
        }
    }
}
