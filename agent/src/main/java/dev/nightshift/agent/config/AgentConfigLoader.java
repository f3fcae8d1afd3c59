package dev.nightshift.agent.config;

import dev.nightshift.agent.reconcile.ManagedPools;
import dev.nightshift.spec.model.PoolRole;
import java.util.LinkedHashSet;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

import dev.nightshift.agent.git.CommitVerification;
import dev.nightshift.agent.git.GitSourceConfig;
import dev.nightshift.agent.nodeupdate.JobSettings;
import dev.nightshift.agent.provider.http.MachineApiEndpoint;
import dev.nightshift.agent.provider.capi.InfrastructureMapping;
import dev.nightshift.spec.model.DurationText;
import dev.nightshift.spec.yaml.Fields;
import dev.nightshift.spec.yaml.QuotedScalars;
import dev.nightshift.spec.yaml.YamlDocuments;
import dev.nightshift.spec.yaml.YamlError;
import dev.nightshift.spec.yaml.YamlNode;
import dev.nightshift.spec.yaml.YamlText;

/**
 * Reads the agent's YAML configuration file into {@link AgentConfig}, one group (section) at a time,
 * through the spec's strict reader ({@link YamlDocuments}, {@link Fields}): one document, composed and
 * never constructed, with the spec's limits; duplicate keys, unknown keys, foreign tags and values of
 * the wrong type refused, each at {@code file:line:column} with the field's path. Refuses secrets
 * written inline too: a token or webhook secret is named by the file or environment variable that
 * holds it.
 */
public final class AgentConfigLoader {

    private static final Set<String> INLINE_SECRETS = Set.of("token", "password", "secret", "privateKey", "webhookUrl");

    private static final String DNS_LABEL = "[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?";
    private static final String DNS_SUBDOMAIN = "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
    private static final String DURATION = "a duration such as 30s, 5m or 1h";

    /** The configuration, or every problem with it, each as {@code file:line:column: field: what}, in the file's order. */
    public record Result(Optional<AgentConfig> config, List<String> errors) {
    }

    /**
     * An agent-configuration fragment ({@code --agent-config} of {@code sandbox} and {@code demo}): its sections, read as
     * the agent's file is, replace those of the configuration it is laid over; its text, for an agent in another process.
     */
    public record Fragment(Optional<java.util.function.UnaryOperator<AgentConfig>> overlay, String text, List<String> errors) {
    }

    /** What a fragment may set: the world it runs in (Git, cluster, port, cache, provider, node updates) is the sandbox's. */
    public static final List<String> FRAGMENT_SECTIONS = List.of("notifications", "validation", "webhook", "dryRun");

    /** Reads a fragment: errors as {@link #load}'s, and a section the sandbox decides refused at its key. */
    public Fragment fragment(Path file) {
        Result loaded = load(file);
        if (!loaded.errors().isEmpty()) {
            return new Fragment(Optional.empty(), "", loaded.errors());
        }
        String name = file.getFileName().toString();
        String text;
        try {
            text = Files.readString(file, java.nio.charset.StandardCharsets.UTF_8);
        } catch (IOException e) {
            return new Fragment(Optional.empty(), "", List.of(YamlError.ofFile(name, "cannot read: " + e.getMessage()).toString()));
        }
        List<YamlError> errors = new ArrayList<>();
        Optional<YamlNode> document = YamlDocuments.single(name, text, errors);
        List<String> sections = new ArrayList<>();
        if (document.isPresent() && document.get() instanceof YamlNode.MapNode root) {
            Fields top = Fields.of(root, errors, QuotedScalars.READ_BY_TEXT);
            for (String key : top.keys()) {
                if (FRAGMENT_SECTIONS.contains(key)) {
                    sections.add(key);
                } else {
                    top.error(key, top.take(key).orElseThrow(), "is the sandbox's own; a fragment sets only "
                            + String.join(", ", FRAGMENT_SECTIONS));
                }
            }
        }
        if (!errors.isEmpty()) {
            return new Fragment(Optional.empty(), "", refused(errors).errors());
        }
        AgentConfig f = loaded.config().orElseThrow();
        java.util.function.UnaryOperator<AgentConfig> overlay = base -> {
            AgentConfig c = base;
            for (String section : sections) {
                c = switch (section) {
                    case "notifications" -> c.with(f.notifications());
                    case "validation" -> c.with(f.validation());
                    case "webhook" -> c.with(f.webhook());
                    case "dryRun" -> c.with(new AgentConfig.Overrides(Optional.empty(), Optional.empty(), Optional.empty(),
                            Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.of(f.dryRun())));
                    default -> throw new IllegalStateException(section);
                };
            }
            return c;
        };
        return new Fragment(Optional.of(overlay), text, List.of());
    }

    public Result load(Path file) {
        String name = file.getFileName().toString();
        List<YamlError> errors = new ArrayList<>();
        try {
            if (YamlText.isTooLarge(Files.size(file))) {
                return refused(List.of(YamlText.tooLarge(name)));
            }
            Optional<String> text = YamlText.decode(name, Files.readAllBytes(file), errors);
            return text.isPresent() ? parse(name, text.get()) : refused(errors);
        } catch (IOException e) {
            return refused(List.of(YamlError.ofFile(name, "cannot read: " + e.getMessage())));
        }
    }

    Result parse(String file, String text) {
        List<YamlError> errors = new ArrayList<>();
        Optional<YamlNode> document = YamlDocuments.single(file, text, errors);
        if (!errors.isEmpty()) {
            return refused(errors);
        }
        if (document.isEmpty()) {
            return new Result(Optional.of(AgentConfig.DEFAULTS), List.of());
        }
        if (!(document.get() instanceof YamlNode.MapNode root)) {
            return refused(List.of(YamlError.at(document.get().where(), "(document)",
                    "must be a mapping, got " + YamlNode.describe(document.get()))));
        }
        // A quoted "9400" or "true" has always been read by its text here (templating tools quote).
        Fields top = withoutSecrets(Fields.of(root, errors, QuotedScalars.READ_BY_TEXT));
        Fields git = section(top, "git");
        Fields auth = section(git, "auth");
        Fields verify = section(git, "verify");
        Fields http = section(top, "http");
        Fields webhook = section(top, "webhook");
        Fields election = section(top, "leaderElection");
        Fields validation = section(top, "validation");
        Fields provider = section(top, "provider");
        Fields clusterApi = section(provider, "clusterApi");
        Fields httpProvider = section(provider, "http");
        Fields nodeUpdates = section(top, "nodeUpdates");
        Fields job = section(nodeUpdates, "job");
        Fields notifications = section(top, "notifications");
        Fields commitStatus = section(notifications, "commitStatus");
        Fields slack = section(notifications, "slack");
        Fields pools = section(top, "pools");
        Fields health = section(top, "health");
        Fields prometheus = section(health, "prometheus");

        AgentConfig d = AgentConfig.DEFAULTS;
        AgentConfig.LeaderElection leader = leaderElection(election, d.leaderElection());
        AgentConfig.Validation checks = validation(validation, d.validation());
        AgentConfig.Git source = git(git, auth, d.git());
        Optional<CommitVerification> verification = verify(errors, git, verify);
        if (verification.isPresent()) {
            source = source.verified(verification.get());
        }
        Optional<String> cluster = top.string("cluster");
        AgentConfig.Http port = http.integer("port", 0, 65535, "a port from 0 to 65535").map(AgentConfig.Http::new)
                .orElse(d.http());
        AgentConfig.Webhook hook = new AgentConfig.Webhook(webhook.string("secretFile").map(Path::of), webhook.string("secretEnv"));
        AgentConfig config = new AgentConfig(source, cluster, port, hook,
                top.string("cacheDir").map(Path::of).orElse(d.cacheDir()),
                top.bool("dryRun", d.dryRun()),
                leader, checks, provider(top, provider, clusterApi, httpProvider), AgentConfig.NodeUpdates.DEFAULT);
        config = config.with(nodeUpdates(errors, top, nodeUpdates, job, config.provider()));
        config = config.with(NotificationsSection.read(notifications, commitStatus, slack));
        config = config.with(managedPools(pools));
        config = config.with(health(prometheus));

        AgentConfig.Auth credentials = config.git().auth();
        if (credentials.sshKeyFile().isPresent() && credentials.knownHostsFile().isEmpty()) {
            auth.error("knownHostsFile", auth.take("sshKeyFile").orElseThrow(),
                    "is required with sshKeyFile: SSH host keys are always verified");
        }
        if (credentials.tokenFile().isPresent() && credentials.tokenEnv().isPresent()) {
            auth.error("tokenEnv", auth.take("tokenEnv").orElseThrow(), "give tokenFile or tokenEnv, not both");
        }
        for (Fields section : List.of(top, git, auth, verify, http, webhook, election, validation, provider, clusterApi,
                httpProvider, nodeUpdates, notifications, commitStatus, slack, pools, health, prometheus)) {
            section.finish();
        }
        return errors.isEmpty() ? new Result(Optional.of(config), List.of()) : refused(errors);
    }

    /** The errors in the order of the file; those at one place in the order they were found. */
    private static Result refused(List<YamlError> errors) {
        return new Result(Optional.empty(), errors.stream()
                .sorted(Comparator.comparingInt(YamlError::line).thenComparingInt(YamlError::column))
                .map(YamlError::toString).distinct().toList());
    }

    /** The mapping at {@code key} (an empty one when it is not written), its inline secrets refused. */
    static Fields section(Fields parent, String key) {
        return withoutSecrets(parent.mapOrEmpty(key));
    }

    /** Refuses a secret written as a value, at its key: whatever the mapping, it never belongs in the file. */
    private static Fields withoutSecrets(Fields section) {
        for (String key : section.keys()) {
            if (INLINE_SECRETS.contains(key)) {
                section.refuse(key, "secrets are never written in the configuration: name the file (" + key
                        + "File) or environment variable (" + key + "Env) that holds it");
            }
        }
        return section;
    }

    /** {@code git:} and its {@code auth:}. */
    private static AgentConfig.Git git(Fields git, Fields auth, AgentConfig.Git d) {
        Optional<URI> url = git.string("url").flatMap(u -> uri(git, "url", u)).filter(u -> {
            Optional<String> credentials = GitSourceConfig.credentialsInUrl(u);
            credentials.ifPresent(why -> git.error("url", git.take("url").orElseThrow(), why));
            return credentials.isEmpty();
        });
        String ref = git.string("ref").orElse(d.ref());
        String path = git.string("path").orElse(d.path());
        Duration pollInterval = duration(git, "pollInterval").orElse(d.pollInterval());
        AgentConfig.Auth credentials = new AgentConfig.Auth(
                auth.string("user"),
                auth.string("tokenFile").map(Path::of),
                auth.string("tokenEnv"),
                auth.string("sshKeyFile").map(Path::of),
                auth.string("knownHostsFile").map(Path::of));
        Optional<Path> caFile = git.string("caFile").map(Path::of);
        Duration timeout = duration(git, "timeout").orElse(d.timeout());
        return new AgentConfig.Git(url, ref, path, pollInterval, timeout, caFile, credentials);
    }

    /**
     * {@code git.verify:}: {@code mode: ssh} with {@code allowedSignersFile}, or {@code mode: gpg} with
     * {@code publicKeysFile} and {@code fingerprints}; {@code allowRewind} false unless said. Empty
     * without the section, or when it has errors (then they are reported).
     */
    private static Optional<CommitVerification> verify(List<YamlError> errors, Fields git, Fields verify) {
        // Unlike other sections, a verify: written with nothing under it is refused rather than read as
        // absent: whoever wrote it meant commits to be verified.
        if (!git.written("verify")) {
            return Optional.empty();
        }
        int before = errors.size();
        Optional<String> mode = verify.string("mode");
        Optional<Path> signers = verify.string("allowedSignersFile").map(Path::of);
        Optional<Path> keys = verify.string("publicKeysFile").map(Path::of);
        Optional<List<String>> fingerprints = verify.strings("fingerprints", "[\"0123456789ABCDEF0123456789ABCDEF01234567\"]");
        boolean allowRewind = verify.bool("allowRewind", false);
        if (mode.isEmpty()) {
            if (verify.take("mode").isEmpty()) {
                verify.error("mode", verify.where(), "is required: ssh (with allowedSignersFile) or gpg (with publicKeysFile and"
                        + " fingerprints)");
            }
        } else if (mode.get().equals("ssh")) {
            if (signers.isEmpty()) {
                verify.error("allowedSignersFile", verify.take("mode").orElseThrow(), "is required with mode ssh: the allowed"
                        + " signers file, in the format of git's gpg.ssh.allowedSignersFile");
            }
            for (String gpgOnly : List.of("publicKeysFile", "fingerprints")) {
                verify.take(gpgOnly).ifPresent(at -> verify.error(gpgOnly, at, "is only for mode gpg"));
            }
        } else if (mode.get().equals("gpg")) {
            YamlNode modeNode = verify.take("mode").orElseThrow();
            if (keys.isEmpty()) {
                verify.error("publicKeysFile", modeNode, "is required with mode gpg: the allowed OpenPGP"
                        + " public keys (gpg --armor --export KEY)");
            }
            if (fingerprints.isEmpty() || fingerprints.get().isEmpty()) {
                verify.error("fingerprints", verify.take("fingerprints").orElse(modeNode),
                        "is required with mode gpg: the fingerprints of the keys allowed to sign, such as"
                                + " [\"0123456789ABCDEF0123456789ABCDEF01234567\"]");
            }
            fingerprints.orElse(List.of()).stream().filter(f -> !CommitVerification.isFingerprint(f)).forEach(f -> verify.error(
                    "fingerprints", verify.take("fingerprints").orElseThrow(),
                    "must be OpenPGP fingerprints (40 or 64 hex digits, as gpg --fingerprint prints them), got \"" + f + "\""));
            verify.take("allowedSignersFile").ifPresent(at -> verify.error("allowedSignersFile", at, "is only for mode ssh"));
        } else {
            verify.error("mode", verify.take("mode").orElseThrow(), "must be ssh or gpg, got \"" + mode.get() + "\"");
        }
        if (errors.size() > before || mode.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new CommitVerification(mode.get().equals("ssh") ? CommitVerification.Mode.SSH : CommitVerification.Mode.GPG,
                signers, keys, fingerprints.orElse(List.of()), allowRewind));
    }

    /** {@code leaderElection:}; the identity is never read from the file (it is the pod's name). */
    private static AgentConfig.LeaderElection leaderElection(Fields election, AgentConfig.LeaderElection d) {
        return new AgentConfig.LeaderElection(
                election.bool("enabled", d.enabled()),
                election.string("leaseName").orElse(d.leaseName()),
                duration(election, "leaseDuration").filter(v -> atLeast(election, "leaseDuration", v, Duration.ofSeconds(2)))
                        .orElse(d.leaseDuration()),
                d.identity());
    }

    /**
     * {@code pools: {include: [...], roles: [...]}}: the pools this agent acts on. An empty list is refused (it would
     * read as "every pool" or as "none", and neither is what someone writing it means); roles as the spec or kops spell them.
     */
    private static ManagedPools managedPools(Fields pools) {
        Set<String> include = new LinkedHashSet<>();
        Set<PoolRole> roles = new LinkedHashSet<>();
        pools.strings("include", "[web, batch]").ifPresent(names -> {
            if (names.isEmpty()) {
                pools.refuse("include", "must name at least one pool; leave it out to manage every pool");
            }
            include.addAll(names);
        });
        pools.strings("roles", "[node, apiserver]").ifPresent(names -> {
            if (names.isEmpty()) {
                pools.refuse("roles", "must name at least one role; leave it out to manage every role");
            }
            for (String name : names) {
                Optional<PoolRole> role = ManagedPools.role(name);
                if (role.isEmpty()) {
                    pools.refuse("roles", "\"" + name + "\" is not a pool role; the roles are " + ManagedPools.ROLES);
                }
                role.ifPresent(roles::add);
            }
        });
        return new ManagedPools(include, roles);
    }

    /** {@code validation:}. */
    private static AgentConfig.Validation validation(Fields validation, AgentConfig.Validation d) {
        return new AgentConfig.Validation(
                validation.integer("consecutive", 1, 9999, "a whole number from 1").orElse(d.consecutive()),
                duration(validation, "interval").orElse(d.interval()));
    }

    /**
     * {@code provider.type}, one of {@link AgentConfig.Provider#TYPES}, and {@code provider.clusterApi}
     * for {@code cluster-api}; empty when the file names none (then the flag must).
     */
    private static Optional<AgentConfig.Provider> provider(Fields top, Fields provider, Fields clusterApi, Fields http) {
        // Every setting is read before the type is judged, so that each is checked, and known, whatever the type.
        AgentConfig.Provider.ClusterApi d = AgentConfig.Provider.ClusterApi.DEFAULT;
        AgentConfig.Provider.ClusterApi capi = new AgentConfig.Provider.ClusterApi(
                clusterApi.string("namespace").filter(ns -> {
                    if (ns.matches(DNS_LABEL)) {
                        return true;
                    }
                    clusterApi.error("namespace", clusterApi.take("namespace").orElseThrow(),
                            "must be a Kubernetes namespace name (lower-case letters, digits and '-', at most 63), got \"" + ns + "\"");
                    return false;
                }).orElse(d.namespace()),
                // A secret: its path only, never its content, goes anywhere.
                clusterApi.string("kubeconfigFile").map(Path::of),
                infrastructure(section(clusterApi, "infrastructure")));
        AgentConfig.Provider.Http httpSettings = httpProvider(http);
        Optional<String> type = provider.string("type");
        if (top.take("provider").filter(YamlNode.MapNode.class::isInstance).isPresent() && provider.take("type").isEmpty()) {
            provider.error("type", provider.where(), "is required: one of " + String.join(", ", AgentConfig.Provider.TYPES));
            return Optional.empty();
        }
        return type.filter(t -> {
            if (AgentConfig.Provider.TYPES.contains(t)) {
                return true;
            }
            provider.error("type", provider.take("type").orElseThrow(), "unknown provider \"" + t + "\"; this release has: "
                    + String.join(", ", AgentConfig.Provider.TYPES));
            return false;
        }).filter(t -> onlyFor(provider, "clusterApi", t, AgentConfig.Provider.CLUSTER_API))
                .filter(t -> onlyFor(provider, "http", t, AgentConfig.Provider.HTTP))
                .map(t -> new AgentConfig.Provider(t, capi, httpSettings));
    }

    /** Whether the settings at {@code key}, if written, are those of the provider {@code type}; if not, says so. */
    private static boolean onlyFor(Fields provider, String key, String type, String settingsOf) {
        Optional<YamlNode> settings = provider.take(key);
        if (settings.isEmpty() || type.equals(settingsOf)) {
            return true;
        }
        provider.error(key, settings.get(), "is for provider type " + settingsOf + ", not " + type);
        return false;
    }

    /** {@code health.prometheus}: the URL, token file, CA file and query timeout of the Prometheus the rollout checks ask. */
    private static AgentConfig.Health health(Fields prometheus) {
        AgentConfig.Health d = AgentConfig.Health.NONE;
        Optional<URI> url = prometheus.string("url").flatMap(text -> {
            Optional<URI> parsed = machineApiUrl(text);
            if (parsed.isEmpty()) {
                prometheus.error("url", prometheus.take("url").orElseThrow(), text.contains("@")
                        ? "must not carry user info: the token goes in health.prometheus.tokenFile"
                        : "must be an http:// or https:// URL with a host, got \"" + text + "\"");
            }
            return parsed;
        });
        Duration timeout = duration(prometheus, "timeout").filter(v -> atLeast(prometheus, "timeout", v, Duration.ofSeconds(1)))
                .orElse(d.timeout());
        // Secrets: their paths only, never their content, go anywhere.
        return new AgentConfig.Health(url, prometheus.string("tokenFile").map(Path::of), prometheus.string("caFile").map(Path::of),
                timeout);
    }

    /** {@code provider.http}: the machine API's URL, token file, CA file and request timeout. */
    private static AgentConfig.Provider.Http httpProvider(Fields http) {
        AgentConfig.Provider.Http d = AgentConfig.Provider.Http.DEFAULT;
        Optional<URI> url = http.string("url").flatMap(text -> {
            Optional<URI> parsed = machineApiUrl(text);
            if (parsed.isEmpty() && text.contains("@")) {
                // It may carry a password: never repeat it.
                http.error("url", http.take("url").orElseThrow(), "must not carry user info: the token goes in provider.http.tokenFile");
            } else if (parsed.isEmpty()) {
                http.error("url", http.take("url").orElseThrow(), "must be an http:// or https:// URL with a host, got \"" + text + "\"");
            }
            Optional<String> inClear = parsed.flatMap(MachineApiEndpoint::tokenInClear);
            inClear.ifPresent(why -> http.error("url", http.take("url").orElseThrow(), why));
            return parsed.filter(u -> inClear.isEmpty());
        });
        Duration timeout = duration(http, "timeout").filter(v -> atLeast(http, "timeout", v, Duration.ofSeconds(1)))
                .orElse(d.timeout());
        // Secrets: their paths only, never their content, go anywhere.
        return new AgentConfig.Provider.Http(url, http.string("tokenFile").map(Path::of), http.string("caFile").map(Path::of),
                timeout);
    }

    /**
     * An http(s) URL with a host and without user info (the token goes in a file, never in the URL).
     * Whether plain {@code http://} may carry the token there is another question, answered by
     * {@link MachineApiEndpoint#tokenInClear} and asked when the URL is set ({@link AgentConfig.Provider.Http}).
     */
    public static Optional<URI> machineApiUrl(String text) {
        try {
            URI uri = new URI(text);
            boolean web = "http".equals(uri.getScheme()) || "https".equals(uri.getScheme());
            return web && uri.getHost() != null && uri.getUserInfo() == null && uri.getQuery() == null ? Optional.of(uri) : Optional.empty();
        } catch (URISyntaxException e) {
            return Optional.empty();
        }
    }

    /** The pointers a field of the pool may be written at in a template kind, each RFC 6901. */
    private static final List<String> MAPPED_FIELDS = List.of("machineType", "volumeSize", "volumeType", "image");

    /**
     * {@code provider.clusterApi.infrastructure}: per template kind, where the pool's machine type,
     * volume size and type and image go (JSON pointers into the template object), and whether the
     * kind needs the catalog's {@code providerImage}.
     */
    private static Map<String, InfrastructureMapping> infrastructure(Fields kinds) {
        Map<String, InfrastructureMapping> mappings = new TreeMap<>();
        for (String kind : kinds.keys()) {
            if (INLINE_SECRETS.contains(kind)) {
                continue;
            }
            kinds.map(kind).map(AgentConfigLoader::withoutSecrets).ifPresent(fields -> {
                Map<String, Optional<String>> pointers = new HashMap<>();
                for (String field : MAPPED_FIELDS) {
                    pointers.put(field, fields.string(field).filter(p -> {
                        if (p.startsWith("/")) {
                            return true;
                        }
                        fields.error(field, fields.take(field).orElseThrow(), "must be a JSON pointer (RFC 6901) such as"
                                + " /spec/template/spec/" + field + ", got \"" + p + "\"");
                        return false;
                    }));
                }
                boolean imageRequired = fields.bool("imageRequired", false);
                fields.finish();
                mappings.put(kind, new InfrastructureMapping(kind, pointers.get("machineType"), pointers.get("volumeSize"),
                        pointers.get("volumeType"), pointers.get("image"), imageRequired));
            });
        }
        return mappings;
    }

    /**
     * {@code nodeUpdates.type}, refused here with its place when this release cannot run it with the
     * file's provider ({@code provider} with {@code cluster-api}), and {@code nodeUpdates.job}, which
     * {@code job} requires and no other type takes. Unset, the type is the provider's default,
     * decided when the provider is known (a flag may name it).
     */
    private static AgentConfig.NodeUpdates nodeUpdates(List<YamlError> errors, Fields top, Fields nodeUpdates, Fields job,
                                                       Optional<AgentConfig.Provider> provider) {
        Optional<String> type = nodeUpdates.string("type");
        if (top.take("nodeUpdates").filter(YamlNode.MapNode.class::isInstance).isPresent() && nodeUpdates.take("type").isEmpty()) {
            nodeUpdates.error("type", nodeUpdates.where(), "is required: one of " + String.join(", ", AgentConfig.NodeUpdates.TYPES));
            return AgentConfig.NodeUpdates.DEFAULT;
        }
        if (type.isEmpty()) {
            return AgentConfig.NodeUpdates.DEFAULT;
        }
        Optional<YamlNode> jobNode = nodeUpdates.take("job");
        Optional<JobSettings> settings = Optional.empty();
        if (type.get().equals(AgentConfig.NodeUpdates.JOB)) {
            if (jobNode.isEmpty()) {
                nodeUpdates.error("job", nodeUpdates.take("type").orElseThrow(),
                        "is required with type job: at least the updater's image and command");
                return AgentConfig.NodeUpdates.DEFAULT;
            }
            settings = jobSettings(errors, job);
            if (settings.isEmpty()) {
                return AgentConfig.NodeUpdates.DEFAULT;
            }
        } else if (jobNode.isPresent()) {
            // Its settings are not read: that the section is here at all is the error.
            nodeUpdates.error("job", jobNode.get(), "is for type job, not " + type.get());
        }
        AgentConfig.NodeUpdates updates = new AgentConfig.NodeUpdates(type, settings);
        // Without a provider in the file, the type alone is checked; the flag's provider is checked at start.
        updates.refusal(provider.orElse(new AgentConfig.Provider(AgentConfig.Provider.SIMULATED)))
                .ifPresent(why -> nodeUpdates.error("type", nodeUpdates.take("type").orElseThrow(), why));
        return updates;
    }

    /**
     * {@code nodeUpdates.job}: {@code image} and {@code command} required; {@code namespace} and
     * {@code serviceAccount} Kubernetes names with their defaults; {@code activeDeadline} a duration.
     * Empty when anything is wrong (each error already said with its place).
     */
    private static Optional<JobSettings> jobSettings(List<YamlError> errors, Fields job) {
        int before = errors.size();
        String namespace = job.string("namespace").filter(ns -> {
            if (ns.matches(DNS_LABEL)) {
                return true;
            }
            job.error("namespace", job.take("namespace").orElseThrow(),
                    "must be a Kubernetes namespace name (lower-case letters, digits and '-', at most 63), got \"" + ns + "\"");
            return false;
        }).orElse(JobSettings.DEFAULT_NAMESPACE);
        Optional<String> image = job.string("image").filter(i -> {
            if (!i.isBlank() && !i.matches(".*\\s.*")) {
                return true;
            }
            job.error("image", job.take("image").orElseThrow(), "must be a container image reference, got \"" + i + "\"");
            return false;
        });
        if (job.take("image").isEmpty()) {
            job.error("image", job.where(), "is required: the updater image run on each node");
        }
        Optional<List<String>> command = job.strings("command", "[\"/bin/update-node\"]").filter(c -> {
            if (!c.isEmpty() && c.stream().noneMatch(String::isEmpty)) {
                return true;
            }
            job.error("command", job.take("command").orElseThrow(), "must be a list of at least one non-empty string, such as"
                    + " [\"/bin/update-node\"]");
            return false;
        });
        if (job.take("command").isEmpty()) {
            job.error("command", job.where(), "is required: the updater's command, a list such as [\"/bin/update-node\"]");
        }
        String serviceAccount = job.string("serviceAccount").filter(sa -> {
            if (sa.length() <= 253 && sa.matches(DNS_SUBDOMAIN)) {
                return true;
            }
            job.error("serviceAccount", job.take("serviceAccount").orElseThrow(), "must be a Kubernetes name, got \"" + sa + "\"");
            return false;
        }).orElse(JobSettings.DEFAULT_SERVICE_ACCOUNT);
        Optional<Duration> deadline = duration(job, "activeDeadline");
        job.finish();
        if (errors.size() > before || image.isEmpty() || command.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new JobSettings(namespace, image.get(), command.get(), serviceAccount, deadline));
    }

    /** A duration longer than zero, such as 90s, 5m or 1h30m. */
    static Optional<Duration> duration(Fields f, String key) {
        return f.parsed(key, text -> DurationText.parse(text).filter(d -> !d.isZero()), DURATION);
    }

    static boolean atLeast(Fields f, String key, Duration value, Duration minimum) {
        if (value.compareTo(minimum) < 0) {
            f.error(key, f.take(key).orElseThrow(), "must be at least " + minimum.toSeconds() + "s");
            return false;
        }
        return true;
    }

    private static Optional<URI> uri(Fields f, String key, String value) {
        try {
            return Optional.of(new URI(value));
        } catch (URISyntaxException e) {
            f.error(key, f.take(key).orElseThrow(), "is not a URL: " + e.getReason());
            return Optional.empty();
        }
    }
}
