package dev.nightshift.spec.load;

import java.text.ParseException;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.quartz.CronExpression;

import dev.nightshift.spec.model.ClusterSpec;
import dev.nightshift.spec.model.CredentialsRotation;
import dev.nightshift.spec.model.DurationText;
import dev.nightshift.spec.model.FleetConcurrency;
import dev.nightshift.spec.model.HealthCheck;
import dev.nightshift.spec.model.ImageVersion;
import dev.nightshift.spec.model.IntOrPercent;
import dev.nightshift.spec.model.KubeletConfig;
import dev.nightshift.spec.model.KubernetesVersion;
import dev.nightshift.spec.model.Machine;
import dev.nightshift.spec.model.MachineControllerManager;
import dev.nightshift.spec.model.MachineImage;
import dev.nightshift.spec.model.MachineImageRef;
import dev.nightshift.spec.model.Maintenance;
import dev.nightshift.spec.model.OnEvictionBlocked;
import dev.nightshift.spec.model.OnFailure;
import dev.nightshift.spec.model.PoolRole;
import dev.nightshift.spec.model.ProviderConfig;
import dev.nightshift.spec.model.Quantity;
import dev.nightshift.spec.model.RollingUpdateDefaults;
import dev.nightshift.spec.model.Rollout;
import dev.nightshift.spec.model.Taint;
import dev.nightshift.spec.model.TaintEffect;
import dev.nightshift.spec.model.UpdateStrategy;
import dev.nightshift.spec.model.Volume;
import dev.nightshift.spec.model.WorkerPoolSpec;
import dev.nightshift.spec.yaml.Fields;
import dev.nightshift.spec.yaml.QuotedScalars;
import dev.nightshift.spec.yaml.SourceMap;
import dev.nightshift.spec.yaml.YamlError;
import dev.nightshift.spec.yaml.YamlNode;

/** Turns one YAML document into a {@code Cluster} or {@code WorkerPool} spec, field by field. */
final class SpecReader {

    static final String API_VERSION = "nightshift.dev/v1alpha1";

    private static final Pattern DAILY_TIME = Pattern.compile("([01][0-9]|2[0-3])([0-5][0-9])([0-5][0-9])([+-])([01][0-9])([0-5][0-9])");
    private static final Pattern NAME = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");

    private final List<YamlError> errors;
    private final java.util.Set<String> invalidClusters = new java.util.HashSet<>();

    SpecReader(List<YamlError> errors) {
        this.errors = errors;
    }

    /** Names of Cluster documents that had errors: their pools must not report the cluster as missing. */
    java.util.Set<String> invalidClusters() {
        return java.util.Set.copyOf(invalidClusters);
    }

    /** The document, or empty when it had errors (all of them added to the error list). */
    Optional<ParsedDocument> read(YamlNode document) {
        if (!(document instanceof YamlNode.MapNode root)) {
            errors.add(YamlError.at(document.where(), "", "a spec document must be a mapping with apiVersion, kind, metadata and spec"));
            return Optional.empty();
        }
        int before = errors.size();
        SourceMap sources = new SourceMap(root.where());
        // A quoted "2" where a number goes is a string, as Kubernetes would read it.
        Fields top = Fields.of(root, errors, sources, QuotedScalars.STAY_STRINGS);
        String apiVersion = top.requiredString("apiVersion");
        if (!apiVersion.isEmpty() && !apiVersion.equals(API_VERSION)) {
            top.error("apiVersion", top.take("apiVersion").orElseThrow(), "must be " + API_VERSION + ", got \"" + apiVersion + "\"");
        }
        String kind = top.requiredString("kind");
        ParsedDocument parsed;
        switch (kind) {
            case "Cluster" -> parsed = new ParsedDocument.ClusterDocument(cluster(top), sources);
            case "WorkerPool" -> parsed = new ParsedDocument.PoolDocument(pool(top), sources);
            case "" -> {
                return Optional.empty();
            }
            default -> {
                top.error("kind", top.take("kind").orElseThrow(), "unknown kind \"" + kind + "\": must be Cluster or WorkerPool");
                return Optional.empty();
            }
        }
        top.finish();
        if (errors.size() != before && parsed instanceof ParsedDocument.ClusterDocument c && !c.spec().name().isEmpty()) {
            invalidClusters.add(c.spec().name());
        }
        return errors.size() == before ? Optional.of(parsed) : Optional.empty();
    }

    // ---- Cluster ---------------------------------------------------------------------------

    private ClusterSpec cluster(Fields top) {
        Fields metadata = top.requiredMap("metadata");
        String name = name(metadata);
        metadata.stringMap("annotations");
        metadata.finish();

        Fields spec = top.requiredMap("spec");
        Fields kubernetes = spec.requiredMap("kubernetes");
        KubernetesVersion version = kubernetesVersion(kubernetes, true).orElse(new KubernetesVersion(0, 0, 0));
        KubeletConfig kubelet = kubernetes.map("kubelet").map(this::kubelet).orElse(KubeletConfig.EMPTY);
        kubernetes.finish();

        boolean nodeLocalDns = spec.map("systemComponents").map(sc -> {
            boolean enabled = sc.map("nodeLocalDNS").map(n -> {
                boolean e = n.bool("enabled", false);
                n.finish();
                return e;
            }).orElse(false);
            sc.finish();
            return enabled;
        }).orElse(false);

        Optional<CredentialsRotation> ca = Optional.empty();
        Optional<CredentialsRotation> sa = Optional.empty();
        Optional<Fields> credentials = spec.map("credentials");
        if (credentials.isPresent()) {
            Optional<Fields> rotation = credentials.get().map("rotation");
            if (rotation.isPresent()) {
                ca = rotation.get().map("certificateAuthorities").map(this::rotation);
                sa = rotation.get().map("serviceAccountKey").map(this::rotation);
                rotation.get().finish();
            }
            credentials.get().finish();
        }

        Optional<Maintenance> maintenance = spec.map("maintenance").map(this::maintenance);
        RollingUpdateDefaults rollingUpdate = spec.map("rollingUpdate").map(r -> {
            RollingUpdateDefaults d = new RollingUpdateDefaults(limit(r, "maxSurge"), limit(r, "maxUnavailable"));
            r.finish();
            return d;
        }).orElse(RollingUpdateDefaults.NONE);
        List<MachineImage> images = spec.listOfMaps("machineImages", this::machineImage);
        Optional<Rollout> rollout = spec.map("rollout").map(r -> rollout(r, true));
        spec.finish();
        return new ClusterSpec(name, version, kubelet, nodeLocalDns, ca, sa, maintenance, rollingUpdate, images, rollout);
    }

    private String name(Fields metadata) {
        String name = metadata.requiredString("name");
        if (!name.isEmpty() && !NAME.matcher(name).matches()) {
            metadata.error("name", metadata.take("name").orElseThrow(),
                    "must be a DNS label (lower-case letters, digits and '-', at most 63), got \"" + name + "\"");
        }
        return name;
    }

    private Optional<KubernetesVersion> kubernetesVersion(Fields kubernetes, boolean required) {
        Optional<String> text = required ? Optional.of(kubernetes.requiredVersionString("version"))
                : kubernetes.versionString("version");
        return text.filter(t -> !t.isEmpty()).flatMap(t -> {
            Optional<KubernetesVersion> v = KubernetesVersion.parse(t);
            if (v.isEmpty()) {
                kubernetes.error("version", kubernetes.take("version").orElseThrow(),
                        "must be a Kubernetes version MAJOR.MINOR.PATCH such as \"1.31.4\", got \"" + t + "\"");
            }
            return v;
        });
    }

    private KubeletConfig kubelet(Fields f) {
        KubeletConfig k = new KubeletConfig(
                f.scalarMap("kubeReserved", SpecReader::nonNegativeQuantity, "a non-negative quantity such as 80m or 1Gi"),
                f.scalarMap("systemReserved", SpecReader::nonNegativeQuantity, "a non-negative quantity such as 80m or 1Gi"),
                f.scalarMap("evictionHard", SpecReader::threshold, "a quantity such as 100Mi or a percentage such as 10%"),
                f.string("cpuManagerPolicy").flatMap(p -> {
                    if (p.equals("none") || p.equals("static")) {
                        return Optional.of(p);
                    }
                    f.error("cpuManagerPolicy", f.take("cpuManagerPolicy").orElseThrow(), "must be none or static, got \"" + p + "\"");
                    return Optional.empty();
                }));
        f.finish();
        return k;
    }

    private static Optional<Quantity> nonNegativeQuantity(String text) {
        return Quantity.parse(text).filter(q -> !q.isNegative());
    }

    /** An eviction threshold in canonical form: a quantity's amount, or a percentage as written. */
    private static Optional<String> threshold(String text) {
        if (text.matches("(100|[1-9]?[0-9])(\\.[0-9]+)?%")) {
            return Optional.of(text);
        }
        return nonNegativeQuantity(text).map(Quantity::canonical);
    }

    private CredentialsRotation rotation(Fields f) {
        Instant last = instant(f, "lastInitiationTime", true).orElse(Instant.EPOCH);
        List<CredentialsRotation.PendingWorkersRollout> pending = f.listOfMaps("pendingWorkersRollouts",
                p -> new CredentialsRotation.PendingWorkersRollout(p.requiredString("name"),
                        instant(p, "lastInitiationTime", true).orElse(Instant.EPOCH)));
        f.finish();
        return new CredentialsRotation(last, pending);
    }

    private Optional<Instant> instant(Fields f, String key, boolean required) {
        Optional<String> text = required ? Optional.of(f.requiredString(key)) : f.string(key);
        return text.filter(t -> !t.isEmpty()).flatMap(t -> {
            try {
                return Optional.of(Instant.parse(t));
            } catch (DateTimeParseException e) {
                f.error(key, f.take(key).orElseThrow(), "must be an RFC 3339 time in UTC such as \"2026-01-01T00:00:00Z\", got \"" + t + "\"");
                return Optional.empty();
            }
        });
    }

    private Maintenance maintenance(Fields f) {
        Optional<Maintenance.DailyWindow> daily = f.map("timeWindow").flatMap(tw -> {
            Optional<OffsetTime> begin = dailyTime(tw, "begin");
            Optional<OffsetTime> end = dailyTime(tw, "end");
            tw.finish();
            if (begin.isEmpty() || end.isEmpty()) {
                return Optional.empty();
            }
            if (!begin.get().offset().equals(end.get().offset())) {
                tw.error("end", tw.take("end").orElseThrow(), "must use the same UTC offset as begin");
                return Optional.empty();
            }
            if (begin.get().time().equals(end.get().time())) {
                tw.error("end", tw.take("end").orElseThrow(), "must differ from begin (a window of no length never opens)");
                return Optional.empty();
            }
            return Optional.of(new Maintenance.DailyWindow(begin.get().time(), end.get().time(), begin.get().offset()));
        });
        List<Maintenance.CronWindow> windows = f.listOfMaps("windows", this::cronWindow);
        List<Maintenance.Exclusion> exclusions = f.listOfMaps("exclusions", e -> {
            Optional<Instant> start = instant(e, "start", true);
            Optional<Instant> end = instant(e, "end", true);
            String reason = e.string("reason").orElse("");
            if (start.isPresent() && end.isPresent() && !end.get().isAfter(start.get())) {
                e.error("end", e.take("end").orElseThrow(), "must be after start");
            }
            return new Maintenance.Exclusion(start.orElse(Instant.EPOCH), end.orElse(Instant.EPOCH), reason);
        });
        boolean confine = f.bool("confineSpecUpdateRollout", true);
        f.finish();
        return new Maintenance(daily, windows, exclusions, confine);
    }

    private record OffsetTime(LocalTime time, ZoneOffset offset) {
    }

    private Optional<OffsetTime> dailyTime(Fields f, String key) {
        String text = f.requiredString(key);
        if (text.isEmpty()) {
            return Optional.empty();
        }
        Matcher m = DAILY_TIME.matcher(text);
        if (!m.matches()) {
            f.error(key, f.take(key).orElseThrow(), "must be HHMMSS+ZZZZ such as \"220000+0100\", got \"" + text + "\"");
            return Optional.empty();
        }
        try {
            int sign = m.group(4).equals("-") ? -1 : 1;
            ZoneOffset offset = ZoneOffset.ofHoursMinutes(sign * Integer.parseInt(m.group(5)), sign * Integer.parseInt(m.group(6)));
            LocalTime time = LocalTime.of(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3)));
            return Optional.of(new OffsetTime(time, offset));
        } catch (DateTimeException e) {
            f.error(key, f.take(key).orElseThrow(), "has an impossible UTC offset: \"" + text + "\"");
            return Optional.empty();
        }
    }

    private Maintenance.CronWindow cronWindow(Fields f) {
        String schedule = f.requiredString("schedule");
        if (!schedule.isEmpty()) {
            cronProblem(schedule).ifPresent(p -> f.error("schedule", f.take("schedule").orElseThrow(), p));
        }
        Duration duration = duration(f, "duration", null);
        if (duration != null && duration.isZero()) {
            f.error("duration", f.take("duration").orElseThrow(), "must be longer than 0s");
        }
        ZoneId zone = ZoneId.of("UTC");
        Optional<String> zoneText = f.string("timeZone");
        if (zoneText.isPresent()) {
            try {
                zone = ZoneId.of(zoneText.get());
            } catch (DateTimeException e) {
                f.error("timeZone", f.take("timeZone").orElseThrow(), "must be an IANA time zone such as Europe/Berlin, got \"" + zoneText.get() + "\"");
            }
        }
        return new Maintenance.CronWindow(schedule, duration == null ? Duration.ZERO : duration, zone);
    }

    /** Why Quartz refuses a schedule, with a hint for the common mistake of a 5-field Unix cron. */
    static Optional<String> cronProblem(String schedule) {
        String[] parts = schedule.trim().split("\\s+");
        if (parts.length == 5) {
            String dom = parts[2];
            String dow = unixWeekdaysAsNames(parts[4]);
            String quartz = "0 " + parts[0] + " " + parts[1] + " " + (dow.equals("*") ? dom : "?") + " " + parts[3] + " "
                    + (dow.equals("*") ? "?" : dow);
            return Optional.of("is a 5-field Unix cron; Quartz needs seconds first and ? in one day field, e.g. \""
                    + quartz + "\", got \"" + schedule + "\"");
        }
        try {
            new CronExpression(schedule);
            return Optional.empty();
        } catch (ParseException e) {
            return Optional.of("is not a valid Quartz cron expression (" + e.getMessage()
                    + "), e.g. \"0 0 2 ? * SAT,SUN\", got \"" + schedule + "\"");
        }
    }

    private static final String[] WEEKDAYS = {"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN"};

    /**
     * Unix cron numbers weekdays 0-7 from Sunday, Quartz 1-7: names mean the same in both, so the
     * suggestion spells them out. Step values ({@code *}{@code /2}) are numbers, not days, and stay.
     */
    static String unixWeekdaysAsNames(String field) {
        Matcher m = Pattern.compile("(?<!/)\\b([0-7])\\b").matcher(field);
        StringBuilder b = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(b, WEEKDAYS[Integer.parseInt(m.group(1))]);
        }
        m.appendTail(b);
        return b.toString();
    }

    private Duration duration(Fields f, String key, Duration defaultValue) {
        Optional<String> text = f.string(key);
        if (text.isEmpty()) {
            if (defaultValue == null) {
                f.requiredString(key);
            }
            return defaultValue;
        }
        return DurationText.parse(text.get()).orElseGet(() -> {
            f.error(key, f.take(key).orElseThrow(), "must be a duration such as 90s, 15m, 2h or 1h30m, got \"" + text.get() + "\"");
            return defaultValue;
        });
    }

    private Optional<IntOrPercent> limit(Fields f, String key) {
        Optional<YamlNode> node = f.take(key);
        if (node.isEmpty()) {
            return Optional.empty();
        }
        if (node.get() instanceof YamlNode.Scalar s) {
            if (s.kind() == YamlNode.ScalarKind.INT && s.text().matches("0|[1-9][0-9]{0,8}")) {
                return Optional.of(IntOrPercent.of(Integer.parseInt(s.text())));
            }
            if (s.kind() == YamlNode.ScalarKind.STRING) {
                Optional<IntOrPercent> percent = IntOrPercent.parsePercent(s.text());
                if (percent.isPresent()) {
                    return percent;
                }
            }
        }
        f.error(key, node.get(), "must be an int >= 0 or a percentage from 0% to 100%, got " + YamlNode.describe(node.get()));
        return Optional.empty();
    }

    private MachineImage machineImage(Fields f) {
        String name = f.requiredString("name");
        List<MachineImage.Version> versions = f.listOfMaps("versions", v -> {
            ImageVersion version = imageVersion(v, "version", true).orElse(new ImageVersion("0"));
            boolean supported = false;
            Optional<ImageVersion> min = Optional.empty();
            Optional<Fields> inPlace = v.map("inPlaceUpdates");
            if (inPlace.isPresent()) {
                supported = inPlace.get().bool("supported", false);
                min = imageVersion(inPlace.get(), "minVersionForUpdate", false);
                inPlace.get().finish();
            }
            Optional<String> providerImage = v.string("providerImage").filter(t -> !t.isEmpty());
            return new MachineImage.Version(version, supported, min, providerImage);
        });
        return new MachineImage(name, versions);
    }

    private Optional<ImageVersion> imageVersion(Fields f, String key, boolean required) {
        Optional<String> text = required ? Optional.of(f.requiredVersionString(key)) : f.versionString(key);
        return text.filter(t -> !t.isEmpty()).flatMap(t -> {
            if (!ImageVersion.isValid(t)) {
                f.error(key, f.take(key).orElseThrow(), "must be a version such as 1632.0.0, got \"" + t + "\"");
                return Optional.empty();
            }
            return Optional.of(new ImageVersion(t));
        });
    }

    // ---- WorkerPool ------------------------------------------------------------------------

    private WorkerPoolSpec pool(Fields top) {
        Fields metadata = top.requiredMap("metadata");
        String name = name(metadata);
        String cluster = metadata.requiredString("cluster");
        Map<String, String> annotations = metadata.stringMap("annotations");
        metadata.finish();

        Fields spec = top.requiredMap("spec");
        PoolRole role = spec.enumValue("role", PoolRole.class, PoolRole.NODE, PoolRole::yamlName);
        int minimum = spec.requiredInteger("minimum");
        int maximum = spec.requiredInteger("maximum");
        nonNegative(spec, "minimum", minimum);
        nonNegative(spec, "maximum", maximum);
        Optional<IntOrPercent> maxSurge = limit(spec, "maxSurge");
        Optional<IntOrPercent> maxUnavailable = limit(spec, "maxUnavailable");
        UpdateStrategy strategy = spec.enumValue("updateStrategy", UpdateStrategy.class, UpdateStrategy.AutoRollingUpdate, Enum::name);

        Fields machineFields = spec.requiredMap("machine");
        String type = machineFields.requiredString("type");
        Fields image = machineFields.requiredMap("image");
        MachineImageRef imageRef = new MachineImageRef(image.requiredString("name"),
                imageVersion(image, "version", true).orElse(new ImageVersion("0")));
        image.finish();
        machineFields.finish();

        Optional<Volume> volume = spec.map("volume").map(v -> {
            String volumeType = v.requiredString("type");
            Quantity size = v.parsed("size", t -> Quantity.parse(t).filter(q -> q.amount().signum() > 0),
                    "a positive quantity such as 50Gi").orElse(new Quantity(java.math.BigDecimal.ONE, "1"));
            if (v.take("size").isEmpty()) {
                v.requiredString("size");
            }
            v.finish();
            return new Volume(volumeType, size);
        });

        String cri = spec.map("cri").map(c -> {
            String n = c.string("name").orElse("containerd");
            c.finish();
            return n;
        }).orElse("containerd");

        Optional<KubernetesVersion> version = Optional.empty();
        KubeletConfig kubelet = KubeletConfig.EMPTY;
        Optional<Fields> kubernetes = spec.map("kubernetes");
        if (kubernetes.isPresent()) {
            version = kubernetesVersion(kubernetes.get(), false);
            kubelet = kubernetes.get().map("kubelet").map(this::kubelet).orElse(KubeletConfig.EMPTY);
            kubernetes.get().finish();
        }

        ProviderConfig providerConfig = new ProviderConfig(spec.freeForm("providerConfig"));
        Map<String, String> labels = spec.stringMap("labels");
        List<Taint> taints = spec.listOfMaps("taints", t -> new Taint(t.requiredString("key"), t.string("value").orElse(""),
                t.enumValue("effect", TaintEffect.class, TaintEffect.NoSchedule, Enum::name)));
        int minReadySeconds = spec.integer("minReadySeconds", 0);
        nonNegative(spec, "minReadySeconds", minReadySeconds);
        int progressDeadlineSeconds = spec.integer("progressDeadlineSeconds", 0);
        nonNegative(spec, "progressDeadlineSeconds", progressDeadlineSeconds);
        Duration interval = duration(spec, "interval", Duration.ofSeconds(15));
        boolean drainAndTerminate = spec.bool("drainAndTerminate", true);
        MachineControllerManager mcm = spec.map("machineControllerManager").map(this::machineControllerManager)
                .orElse(MachineControllerManager.DEFAULTS);
        Optional<Rollout> rollout = spec.map("rollout").map(r -> rollout(r, false));
        spec.finish();
        return new WorkerPoolSpec(name, cluster, annotations, role, minimum, maximum, maxSurge, maxUnavailable, strategy,
                new Machine(type, imageRef), volume, cri, version, kubelet, providerConfig, labels, taints,
                minReadySeconds, progressDeadlineSeconds, interval, drainAndTerminate, mcm, rollout);
    }

    private static void nonNegative(Fields f, String key, int value) {
        if (value < 0) {
            f.error(key, f.take(key).orElseThrow(), "must be >= 0, got " + value);
        }
    }

    private MachineControllerManager machineControllerManager(Fields f) {
        MachineControllerManager d = MachineControllerManager.DEFAULTS;
        MachineControllerManager m = new MachineControllerManager(
                duration(f, "drainTimeout", d.drainTimeout()),
                duration(f, "healthTimeout", d.healthTimeout()),
                duration(f, "creationTimeout", d.creationTimeout()),
                f.integer("maxEvictRetries", d.maxEvictRetries()),
                duration(f, "inPlaceUpdateTimeout", d.inPlaceUpdateTimeout()),
                f.enumValue("onEvictionBlocked", OnEvictionBlocked.class, d.onEvictionBlocked(), Enum::name),
                f.listOfStrings("nodeConditions", d.nodeConditions()),
                f.optionalBool("disableHealthTimeout"));
        nonNegative(f, "maxEvictRetries", m.maxEvictRetries());
        f.finish();
        return m;
    }

    // ---- rollout ---------------------------------------------------------------------------

    /** @param cluster the Cluster's block (defaults and {@code concurrency}), else a pool's (overrides and {@code after}) */
    private Rollout rollout(Fields f, boolean cluster) {
        Optional<List<IntOrPercent>> waves = f.take("waves").flatMap(node -> waves(f, node));
        Optional<Duration> soak = f.written("soak") ? Optional.ofNullable(duration(f, "soak", null)) : Optional.empty();
        java.util.Set<String> names = new java.util.HashSet<>();
        Optional<List<HealthCheck>> checks = f.written("healthChecks") ? Optional.of(f.listOfMaps("healthChecks", c -> {
            HealthCheck check = healthCheck(c);
            if (!check.name().isEmpty() && !names.add(check.name())) {
                c.error("name", c.take("name").orElseThrow(), "duplicate health check \"" + check.name() + "\": names must be unique");
            }
            return check;
        })) : Optional.empty();
        Optional<OnFailure> onFailure = f.string("onFailure").isPresent()
                ? Optional.of(f.enumValue("onFailure", OnFailure.class, OnFailure.Halt, Enum::name)) : Optional.empty();
        Optional<Integer> maxFailed = f.integer("maxFailedMachines", 1, 1_000_000, "an integer >= 1");
        Optional<Integer> history = f.integer("revisionHistoryLimit", 1, 1_000, "an integer from 1 to 1000");
        Optional<FleetConcurrency> concurrency = Optional.empty();
        List<String> after = List.of();
        if (cluster) {
            concurrency = f.map("concurrency").map(this::concurrency);
            if (f.written("after")) {
                f.refuse("after", "is a WorkerPool's field (the pools it starts after), not the Cluster's");
            }
        } else {
            after = after(f);
            if (f.written("concurrency")) {
                f.refuse("concurrency", "is the Cluster's field (how many pools change at once), not a WorkerPool's");
            }
        }
        f.finish();
        return new Rollout(waves, soak, checks, onFailure, maxFailed, history, concurrency, after);
    }

    /** The most pools at once that can be asked for; far above any fleet, low enough that a typo is caught. */
    static final int MAX_CONCURRENT_POOLS = 10_000;

    private FleetConcurrency concurrency(Fields f) {
        int pools = f.integer("pools", 1, MAX_CONCURRENT_POOLS, "an integer from 1 to " + MAX_CONCURRENT_POOLS).orElse(1);
        Optional<IntOrPercent> maxUnavailable = f.take("maxUnavailableNodes").flatMap(node -> {
            if (node instanceof YamlNode.Scalar s) {
                if (s.kind() == YamlNode.ScalarKind.INT && s.text().matches("[1-9][0-9]{0,8}")) {
                    return Optional.of(IntOrPercent.of(Integer.parseInt(s.text())));
                }
                if (s.kind() == YamlNode.ScalarKind.STRING) {
                    Optional<IntOrPercent> percent = IntOrPercent.parsePercent(s.text()).filter(p -> !p.isZero());
                    if (percent.isPresent()) {
                        return percent;
                    }
                }
            }
            f.error("maxUnavailableNodes", node, "must be a count >= 1 or a percentage from 1% to 100% (quoted) of every managed"
                    + " node, such as \"5%\", got " + YamlNode.describe(node) + " (to stop every rollout, pause instead)");
            return Optional.empty();
        });
        f.finish();
        return new FleetConcurrency(pools, maxUnavailable);
    }

    /** Pool names, each a DNS label, none twice; whether they exist, and cycles, are the validator's (it sees every pool). */
    private List<String> after(Fields f) {
        Optional<List<String>> names = f.strings("after", "[system, ingress]");
        if (names.isEmpty()) {
            return List.of();
        }
        java.util.Set<String> seen = new java.util.HashSet<>();
        List<String> kept = new java.util.ArrayList<>();
        for (int i = 0; i < names.get().size(); i++) {
            String name = names.get().get(i);
            String item = "after[" + i + "]";
            if (!NAME.matcher(name).matches()) {
                f.error(item, f.sources().find(f.path(item)), "must be a pool's name (a DNS label), got \"" + name + "\"");
            } else if (!seen.add(name)) {
                f.error(item, f.sources().find(f.path(item)), "names \"" + name + "\" twice");
            } else {
                kept.add(name);
            }
        }
        return kept;
    }

    /**
     * Cumulative shares of the outdated nodes: counts (>= 1) first, rising, then percentages
     * (1% to 100%), rising, the last one "100%" so that the rollout covers every node.
     */
    private Optional<List<IntOrPercent>> waves(Fields f, YamlNode node) {
        String example = "such as [1, \"10%\", \"50%\", \"100%\"]";
        if (!(node instanceof YamlNode.ListNode list) || list.items().isEmpty()) {
            f.error("waves", node, "must be a non-empty list of counts and percentages " + example + ", got " + YamlNode.describe(node));
            return Optional.empty();
        }
        int before = errors.size();
        List<IntOrPercent> waves = new java.util.ArrayList<>();
        IntOrPercent previous = null;
        for (int i = 0; i < list.items().size(); i++) {
            YamlNode item = list.items().get(i);
            String path = f.path("waves[" + i + "]");
            Optional<IntOrPercent> wave = wave(item);
            if (wave.isEmpty()) {
                errors.add(YamlError.at(item.where(), path, "must be a count >= 1 or a percentage from 1% to 100% (quoted), got "
                        + YamlNode.describe(item)));
                continue;
            }
            IntOrPercent w = wave.get();
            if (previous != null && previous.percent() && !w.percent()) {
                errors.add(YamlError.at(item.where(), path, "a count cannot follow a percentage: write counts first, got " + w
                        + " after " + previous));
            } else if (previous != null && previous.percent() == w.percent() && w.value() <= previous.value()) {
                errors.add(YamlError.at(item.where(), path, "waves are cumulative and must rise: " + w + " after " + previous));
            }
            waves.add(w);
            previous = w;
        }
        if (errors.size() == before && !(previous.percent() && previous.value() == 100)) {
            YamlNode last = list.items().get(list.items().size() - 1);
            errors.add(YamlError.at(last.where(), f.path("waves[" + (list.items().size() - 1) + "]"),
                    "the last wave must be \"100%\" so that every node is updated, got " + previous));
        }
        return errors.size() == before ? Optional.of(waves) : Optional.empty();
    }

    private static Optional<IntOrPercent> wave(YamlNode item) {
        if (item instanceof YamlNode.Scalar s) {
            if (s.kind() == YamlNode.ScalarKind.INT && s.text().matches("[1-9][0-9]{0,8}")) {
                return Optional.of(IntOrPercent.of(Integer.parseInt(s.text())));
            }
            if (s.kind() == YamlNode.ScalarKind.STRING) {
                return IntOrPercent.parsePercent(s.text()).filter(p -> !p.isZero());
            }
        }
        return Optional.empty();
    }

    private static final Pattern CHECK_NAME = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");

    private HealthCheck healthCheck(Fields f) {
        String name = f.requiredString("name");
        if (!name.isEmpty() && !CHECK_NAME.matcher(name).matches()) {
            f.error("name", f.take("name").orElseThrow(), "must be lower-case letters, digits and '-' (at most 63), got \"" + name + "\"");
        }
        Optional<Fields> prometheus = f.map("prometheus");
        Optional<Fields> workloads = f.map("workloadsAvailable");
        if (prometheus.isPresent() && workloads.isPresent()) {
            f.error("workloadsAvailable", f.take("workloadsAvailable").orElseThrow(),
                    "a health check is exactly one of prometheus or workloadsAvailable, not both");
        } else if (prometheus.isEmpty() && workloads.isEmpty() && !f.written("prometheus") && !f.written("workloadsAvailable")) {
            f.error("prometheus", f.where(), "a health check needs prometheus or workloadsAvailable");
        }
        if (prometheus.isPresent()) {
            Fields p = prometheus.get();
            String query = p.requiredString("query");
            if (p.written("query") && query.isBlank()) {
                p.error("query", p.take("query").orElseThrow(), "must be a PromQL query, got nothing");
            }
            Optional<java.math.BigDecimal> min = number(p, "min");
            Optional<java.math.BigDecimal> max = number(p, "max");
            if (!p.written("min") && !p.written("max")) {
                p.error("max", p.where(), "a prometheus check needs max, min or both (the bounds its value must stay within)");
            } else if (min.isPresent() && max.isPresent() && min.get().compareTo(max.get()) > 0) {
                p.error("min", p.take("min").orElseThrow(), "must not be above max (" + max.get().toPlainString() + ")");
            }
            p.finish();
            return new HealthCheck.Prometheus(name, query, min, max);
        }
        if (workloads.isPresent()) {
            Fields w = workloads.get();
            Duration within = duration(w, "within", null);
            if (within != null && within.isZero()) {
                w.error("within", w.take("within").orElseThrow(), "must be longer than 0s");
            }
            w.finish();
            return new HealthCheck.WorkloadsAvailable(name, within == null ? Duration.ZERO : within);
        }
        return new HealthCheck.WorkloadsAvailable(name, Duration.ZERO);
    }

    private static Optional<java.math.BigDecimal> number(Fields f, String key) {
        return f.take(key).flatMap(node -> {
            if (node instanceof YamlNode.Scalar s && (s.kind() == YamlNode.ScalarKind.INT || s.kind() == YamlNode.ScalarKind.FLOAT)) {
                try {
                    return Optional.of(new java.math.BigDecimal(s.text().replace("_", "")).stripTrailingZeros());
                } catch (NumberFormatException e) {
                    // .inf, .nan and the like: refused below
                }
            }
            f.error(key, node, "must be a finite number such as 0.01, got " + YamlNode.describe(node));
            return Optional.empty();
        });
    }
}
