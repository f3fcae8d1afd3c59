package dev.nightshift.agent.config;

import java.io.IOException;
import java.io.StringReader;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;

import dev.nightshift.agent.git.CommitVerification;
import dev.nightshift.spec.model.DurationText;

/**
 * Reads the agent's YAML configuration file into {@link AgentConfig}, one group (section) at a time.
 * Only composes the document (no object is ever constructed from it), refuses unknown fields, and
 * refuses secrets written inline: a token or webhook secret is named by the file or environment
 * variable that holds it.
 */
public final class AgentConfigLoader {

    private static final Set<String> INLINE_SECRETS = Set.of("token", "password", "secret", "privateKey");

    /** The configuration, or every problem with it, each as {@code file:line:column: field: what}. */
    public record Result(Optional<AgentConfig> config, List<String> errors) {
    }

    public Result load(Path file) {
        String name = file.getFileName().toString();
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return new Result(Optional.empty(), List.of(name + ":1:1: cannot read: " + e.getMessage()));
        }
        return parse(name, text);
    }

    Result parse(String file, String text) {
        LoaderOptions options = new LoaderOptions();
        options.setAllowDuplicateKeys(false);
        options.setMaxAliasesForCollections(10);
        Node root;
        try {
            root = new Yaml(options).compose(new StringReader(text));
        } catch (MarkedYAMLException e) {
            Mark m = e.getProblemMark();
            return new Result(Optional.empty(), List.of(file + ":" + (m == null ? 1 : m.getLine() + 1) + ":"
                    + (m == null ? 1 : m.getColumn() + 1) + ": invalid YAML: " + e.getProblem()));
        }
        Reader r = new Reader(file);
        AgentConfig d = AgentConfig.DEFAULTS;
        if (root == null) {
            return new Result(Optional.of(d), List.of());
        }
        Map<String, Node> top = r.mapping(root, "");
        Map<String, Node> git = r.section(top, "git");
        Map<String, Node> auth = r.section(git, "git.auth");
        Map<String, Node> verify = r.section(git, "git.verify");
        Map<String, Node> http = r.section(top, "http");
        Map<String, Node> webhook = r.section(top, "webhook");
        Map<String, Node> election = r.section(top, "leaderElection");
        Map<String, Node> validation = r.section(top, "validation");
        Map<String, Node> provider = r.section(top, "provider");
        Map<String, Node> clusterApi = r.section(provider, "provider.clusterApi");
        Map<String, Node> httpProvider = r.section(provider, "provider.http");
        Map<String, Node> nodeUpdates = r.section(top, "nodeUpdates");
        Map<String, Node> job = r.section(nodeUpdates, "nodeUpdates.job");
        // Read in this order, so that the errors come in the order they always have.
        AgentConfig.LeaderElection leader = leaderElection(r, election, d.leaderElection());
        AgentConfig.Validation checks = validation(r, validation, d.validation());
        AgentConfig.Git source = git(r, git, auth, d.git());
        Optional<CommitVerification> verification = verify(r, git, verify);
        if (verification.isPresent()) {
            source = source.verified(verification.get());
        }
        Optional<String> cluster = r.string(top, "cluster");
        AgentConfig.Http port = r.string(http, "http.port").flatMap(v -> r.port(http.get("port"), "http.port", v))
                .map(AgentConfig.Http::new).orElse(d.http());
        AgentConfig.Webhook hook = new AgentConfig.Webhook(r.string(webhook, "webhook.secretFile").map(Path::of),
                r.string(webhook, "webhook.secretEnv"));
        AgentConfig config = new AgentConfig(source, cluster, port, hook,
                r.string(top, "cacheDir").map(Path::of).orElse(d.cacheDir()),
                r.string(top, "dryRun").map(v -> r.bool(top.get("dryRun"), "dryRun", v)).orElse(d.dryRun()),
                leader, checks, provider(r, top, provider, clusterApi, httpProvider), AgentConfig.NodeUpdates.DEFAULT);
        config = config.with(nodeUpdates(r, top, nodeUpdates, job, config.provider()));
        r.only(top, "", Set.of("git", "cluster", "http", "webhook", "cacheDir", "dryRun", "leaderElection", "validation", "provider",
                "nodeUpdates"));
        r.only(provider, "provider", Set.of("type", "clusterApi", "http"));
        r.only(httpProvider, "provider.http", Set.of("url", "tokenFile", "caFile", "timeout"));
        r.only(clusterApi, "provider.clusterApi", Set.of("namespace", "kubeconfigFile", "infrastructure"));
        r.only(nodeUpdates, "nodeUpdates", Set.of("type", "job"));
        r.only(job, "nodeUpdates.job", Set.of("namespace", "image", "command", "serviceAccount", "activeDeadline"));
        r.only(election, "leaderElection", Set.of("enabled", "leaseName", "leaseDuration"));
        r.only(validation, "validation", Set.of("consecutive", "interval"));
        r.only(git, "git", Set.of("url", "ref", "path", "pollInterval", "timeout", "caFile", "auth", "verify"));
        r.only(verify, "git.verify", Set.of("mode", "allowedSignersFile", "publicKeysFile", "fingerprints", "allowRewind"));
        r.only(auth, "git.auth", Set.of("user", "tokenFile", "tokenEnv", "sshKeyFile", "knownHostsFile"));
        r.only(http, "http", Set.of("port"));
        r.only(webhook, "webhook", Set.of("secretFile", "secretEnv"));
        AgentConfig.Auth credentials = config.git().auth();
        if (credentials.sshKeyFile().isPresent() && credentials.knownHostsFile().isEmpty()) {
            r.error(auth.get("sshKeyFile"), "git.auth.knownHostsFile",
                    "is required with sshKeyFile: SSH host keys are always verified");
        }
        if (credentials.tokenFile().isPresent() && credentials.tokenEnv().isPresent()) {
            r.error(auth.get("tokenEnv"), "git.auth.tokenEnv", "give tokenFile or tokenEnv, not both");
        }
        return r.errors.isEmpty() ? new Result(Optional.of(config), List.of()) : new Result(Optional.empty(), List.copyOf(r.errors));
    }

    /** {@code git:} and its {@code auth:}. */
    private static AgentConfig.Git git(Reader r, Map<String, Node> git, Map<String, Node> auth, AgentConfig.Git d) {
        Optional<URI> url = r.string(git, "git.url").flatMap(u -> r.uri(git.get("url"), "git.url", u));
        String ref = r.string(git, "git.ref").orElse(d.ref());
        String path = r.string(git, "git.path").orElse(d.path());
        Duration pollInterval = r.string(git, "git.pollInterval")
                .flatMap(v -> r.duration(git.get("pollInterval"), "git.pollInterval", v)).orElse(d.pollInterval());
        AgentConfig.Auth credentials = new AgentConfig.Auth(
                r.string(auth, "git.auth.user"),
                r.string(auth, "git.auth.tokenFile").map(Path::of),
                r.string(auth, "git.auth.tokenEnv"),
                r.string(auth, "git.auth.sshKeyFile").map(Path::of),
                r.string(auth, "git.auth.knownHostsFile").map(Path::of));
        Optional<Path> caFile = r.string(git, "git.caFile").map(Path::of);
        Duration timeout = r.string(git, "git.timeout").flatMap(v -> r.duration(git.get("timeout"), "git.timeout", v))
                .orElse(d.timeout());
        return new AgentConfig.Git(url, ref, path, pollInterval, timeout, caFile, credentials);
    }

    /**
     * {@code git.verify:}: {@code mode: ssh} with {@code allowedSignersFile}, or {@code mode: gpg} with
     * {@code publicKeysFile} and {@code fingerprints}; {@code allowRewind} false unless said. Empty
     * without the section, or when it has errors (then they are reported).
     */
    private static Optional<CommitVerification> verify(Reader r, Map<String, Node> git, Map<String, Node> verify) {
        Node section = git.get("verify");
        if (section == null) {
            return Optional.empty();
        }
        int before = r.errors.size();
        Optional<String> mode = r.string(verify, "git.verify.mode");
        Optional<Path> signers = r.string(verify, "git.verify.allowedSignersFile").map(Path::of);
        Optional<Path> keys = r.string(verify, "git.verify.publicKeysFile").map(Path::of);
        Optional<List<String>> fingerprints = r.strings(verify, "git.verify.fingerprints");
        boolean allowRewind = r.string(verify, "git.verify.allowRewind")
                .map(v -> r.bool(verify.get("allowRewind"), "git.verify.allowRewind", v)).orElse(false);
        if (mode.isEmpty()) {
            r.error(section, "git.verify.mode", "is required: ssh (with allowedSignersFile) or gpg (with publicKeysFile and"
                    + " fingerprints)");
        } else if (mode.get().equals("ssh")) {
            if (signers.isEmpty()) {
                r.error(verify.get("mode"), "git.verify.allowedSignersFile", "is required with mode ssh: the allowed signers"
                        + " file, in the format of git's gpg.ssh.allowedSignersFile");
            }
            for (String gpgOnly : List.of("publicKeysFile", "fingerprints")) {
                if (verify.containsKey(gpgOnly)) {
                    r.error(verify.get(gpgOnly), "git.verify." + gpgOnly, "is only for mode gpg");
                }
            }
        } else if (mode.get().equals("gpg")) {
            if (keys.isEmpty()) {
                r.error(verify.get("mode"), "git.verify.publicKeysFile", "is required with mode gpg: the allowed OpenPGP"
                        + " public keys (gpg --armor --export KEY)");
            }
            if (fingerprints.isEmpty() || fingerprints.get().isEmpty()) {
                r.error(verify.getOrDefault("fingerprints", verify.get("mode")), "git.verify.fingerprints",
                        "is required with mode gpg: the fingerprints of the keys allowed to sign, such as"
                                + " [\"0123456789ABCDEF0123456789ABCDEF01234567\"]");
            }
            fingerprints.orElse(List.of()).stream().filter(f -> !CommitVerification.isFingerprint(f)).forEach(f -> r.error(
                    verify.get("fingerprints"), "git.verify.fingerprints",
                    "must be OpenPGP fingerprints (40 or 64 hex digits, as gpg --fingerprint prints them), got \"" + f + "\""));
            if (verify.containsKey("allowedSignersFile")) {
                r.error(verify.get("allowedSignersFile"), "git.verify.allowedSignersFile", "is only for mode ssh");
            }
        } else {
            r.error(verify.get("mode"), "git.verify.mode", "must be ssh or gpg, got \"" + mode.get() + "\"");
        }
        if (r.errors.size() > before) {
            return Optional.empty();
        }
        return Optional.of(new CommitVerification(mode.get().equals("ssh") ? CommitVerification.Mode.SSH : CommitVerification.Mode.GPG,
                signers, keys, fingerprints.orElse(List.of()), allowRewind));
    }

    /** {@code leaderElection:}; the identity is never read from the file (it is the pod's name). */
    private static AgentConfig.LeaderElection leaderElection(Reader r, Map<String, Node> election, AgentConfig.LeaderElection d) {
        return new AgentConfig.LeaderElection(
                r.string(election, "leaderElection.enabled").map(v -> r.bool(election.get("enabled"), "leaderElection.enabled", v))
                        .orElse(d.enabled()),
                r.string(election, "leaderElection.leaseName").orElse(d.leaseName()),
                r.string(election, "leaderElection.leaseDuration")
                        .flatMap(v -> r.duration(election.get("leaseDuration"), "leaderElection.leaseDuration", v))
                        .filter(v -> r.atLeast(election.get("leaseDuration"), "leaderElection.leaseDuration", v, Duration.ofSeconds(2)))
                        .orElse(d.leaseDuration()),
                d.identity());
    }

    /** {@code validation:}. */
    private static AgentConfig.Validation validation(Reader r, Map<String, Node> validation, AgentConfig.Validation d) {
        return new AgentConfig.Validation(
                r.string(validation, "validation.consecutive").flatMap(v -> r.positive(validation.get("consecutive"),
                        "validation.consecutive", v)).orElse(d.consecutive()),
                r.string(validation, "validation.interval")
                        .flatMap(v -> r.duration(validation.get("interval"), "validation.interval", v))
                        .orElse(d.interval()));
    }

    /**
     * {@code provider.type}, one of {@link AgentConfig.Provider#TYPES}, and {@code provider.clusterApi}
     * for {@code cluster-api}; empty when the file names none (then the flag must).
     */
    private static Optional<AgentConfig.Provider> provider(Reader r, Map<String, Node> top, Map<String, Node> provider,
                                                           Map<String, Node> clusterApi, Map<String, Node> http) {
        if (top.containsKey("provider") && !provider.containsKey("type")) {
            r.error(top.get("provider"), "provider.type", "is required: one of " + String.join(", ", AgentConfig.Provider.TYPES));
            return Optional.empty();
        }
        AgentConfig.Provider.ClusterApi d = AgentConfig.Provider.ClusterApi.DEFAULT;
        AgentConfig.Provider.ClusterApi capi = new AgentConfig.Provider.ClusterApi(
                r.string(clusterApi, "provider.clusterApi.namespace").filter(ns -> {
                    if (ns.matches("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?")) {
                        return true;
                    }
                    r.error(clusterApi.get("namespace"), "provider.clusterApi.namespace",
                            "must be a Kubernetes namespace name (lower-case letters, digits and '-', at most 63), got \"" + ns + "\"");
                    return false;
                }).orElse(d.namespace()),
                // A secret: its path only, never its content, goes anywhere.
                r.string(clusterApi, "provider.clusterApi.kubeconfigFile").map(Path::of),
                infrastructure(r, r.section(clusterApi, "provider.clusterApi.infrastructure")));
        return r.string(provider, "provider.type").filter(type -> {
            if (AgentConfig.Provider.TYPES.contains(type)) {
                return true;
            }
            r.error(provider.get("type"), "provider.type", "unknown provider \"" + type + "\"; this release has: "
                    + String.join(", ", AgentConfig.Provider.TYPES));
            return false;
        }).filter(type -> {
            if (!provider.containsKey("clusterApi") || type.equals(AgentConfig.Provider.CLUSTER_API)) {
                return true;
            }
            r.error(provider.get("clusterApi"), "provider.clusterApi", "is for provider type cluster-api, not " + type);
            return false;
        }).filter(type -> {
            if (!provider.containsKey("http") || type.equals(AgentConfig.Provider.HTTP)) {
                return true;
            }
            r.error(provider.get("http"), "provider.http", "is for provider type http, not " + type);
            return false;
        }).map(type -> new AgentConfig.Provider(type, capi, httpProvider(r, http)));
    }

    /** {@code provider.http}: the machine API's URL, token file, CA file and request timeout. */
    private static AgentConfig.Provider.Http httpProvider(Reader r, Map<String, Node> http) {
        AgentConfig.Provider.Http d = AgentConfig.Provider.Http.DEFAULT;
        Optional<java.net.URI> url = r.string(http, "provider.http.url").flatMap(text -> {
            Optional<java.net.URI> parsed = machineApiUrl(text);
            if (parsed.isEmpty() && text.contains("@")) {
                // It may carry a password: never repeat it.
                r.error(http.get("url"), "provider.http.url", "must not carry user info: the token goes in provider.http.tokenFile");
            } else if (parsed.isEmpty()) {
                r.error(http.get("url"), "provider.http.url", "must be an http:// or https:// URL with a host, got \"" + text + "\"");
            }
            return parsed;
        });
        Duration timeout = r.string(http, "provider.http.timeout")
                .flatMap(v -> r.duration(http.get("timeout"), "provider.http.timeout", v))
                .filter(v -> r.atLeast(http.get("timeout"), "provider.http.timeout", v, Duration.ofSeconds(1)))
                .orElse(d.timeout());
        // Secrets: their paths only, never their content, go anywhere.
        return new AgentConfig.Provider.Http(url, r.string(http, "provider.http.tokenFile").map(Path::of),
                r.string(http, "provider.http.caFile").map(Path::of), timeout);
    }

    /** An http(s) URL with a host and without user info (the token goes in a file, never in the URL). */
    public static Optional<java.net.URI> machineApiUrl(String text) {
        try {
            java.net.URI uri = new java.net.URI(text);
            boolean web = "http".equals(uri.getScheme()) || "https".equals(uri.getScheme());
            return web && uri.getHost() != null && uri.getUserInfo() == null && uri.getQuery() == null ? Optional.of(uri) : Optional.empty();
        } catch (java.net.URISyntaxException e) {
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
    private static Map<String, dev.nightshift.agent.provider.capi.InfrastructureMapping> infrastructure(Reader r,
                                                                                                       Map<String, Node> kinds) {
        Map<String, dev.nightshift.agent.provider.capi.InfrastructureMapping> mappings = new java.util.TreeMap<>();
        for (String kind : kinds.keySet()) {
            String at = "provider.clusterApi.infrastructure." + kind;
            Map<String, Node> fields = r.section(kinds, at);
            Map<String, Optional<String>> pointers = new java.util.HashMap<>();
            for (String field : MAPPED_FIELDS) {
                pointers.put(field, r.string(fields, at + "." + field).filter(p -> {
                    if (p.startsWith("/")) {
                        return true;
                    }
                    r.error(fields.get(field), at + "." + field, "must be a JSON pointer (RFC 6901) such as /spec/template/spec/"
                            + field + ", got \"" + p + "\"");
                    return false;
                }));
            }
            boolean imageRequired = r.string(fields, at + ".imageRequired").map(v -> r.bool(fields.get("imageRequired"),
                    at + ".imageRequired", v)).orElse(false);
            Set<String> known = new java.util.HashSet<>(MAPPED_FIELDS);
            known.add("imageRequired");
            r.only(fields, at, known);
            mappings.put(kind, new dev.nightshift.agent.provider.capi.InfrastructureMapping(kind, pointers.get("machineType"),
                    pointers.get("volumeSize"), pointers.get("volumeType"), pointers.get("image"), imageRequired));
        }
        return mappings;
    }

    /**
     * {@code nodeUpdates.type}, refused here with its place when this release cannot run it with the
     * file's provider ({@code provider} with {@code cluster-api}), and {@code nodeUpdates.job}, which
     * {@code job} requires and no other type takes. Unset, the type is the provider's default,
     * decided when the provider is known (a flag may name it).
     */
    private static AgentConfig.NodeUpdates nodeUpdates(Reader r, Map<String, Node> top, Map<String, Node> nodeUpdates,
                                                       Map<String, Node> job, Optional<AgentConfig.Provider> provider) {
        if (top.get("nodeUpdates") instanceof MappingNode && !nodeUpdates.containsKey("type")) {
            r.error(top.get("nodeUpdates"), "nodeUpdates.type", "is required: one of "
                    + String.join(", ", AgentConfig.NodeUpdates.TYPES));
            return AgentConfig.NodeUpdates.DEFAULT;
        }
        Optional<String> type = r.string(nodeUpdates, "nodeUpdates.type");
        if (type.isEmpty()) {
            return AgentConfig.NodeUpdates.DEFAULT;
        }
        Optional<dev.nightshift.agent.nodeupdate.JobSettings> settings = Optional.empty();
        if (type.get().equals(AgentConfig.NodeUpdates.JOB)) {
            if (!nodeUpdates.containsKey("job")) {
                r.error(nodeUpdates.get("type"), "nodeUpdates.job", "is required with type job: at least the updater's image and command");
                return AgentConfig.NodeUpdates.DEFAULT;
            }
            settings = jobSettings(r, nodeUpdates.get("job"), job);
            if (settings.isEmpty()) {
                return AgentConfig.NodeUpdates.DEFAULT;
            }
        } else if (nodeUpdates.containsKey("job")) {
            r.error(nodeUpdates.get("job"), "nodeUpdates.job", "is for type job, not " + type.get());
        }
        AgentConfig.NodeUpdates updates = new AgentConfig.NodeUpdates(type, settings);
        // Without a provider in the file, the type alone is checked; the flag's provider is checked at start.
        updates.refusal(provider.orElse(new AgentConfig.Provider(AgentConfig.Provider.SIMULATED)))
                .ifPresent(why -> r.error(nodeUpdates.get("type"), "nodeUpdates.type", why));
        return updates;
    }

    private static final String DNS_LABEL = "[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?";
    private static final String DNS_SUBDOMAIN = "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";

    /**
     * {@code nodeUpdates.job}: {@code image} and {@code command} required; {@code namespace} and
     * {@code serviceAccount} Kubernetes names with their defaults; {@code activeDeadline} a duration.
     * Empty when anything is wrong (each error already said with its place).
     */
    private static Optional<dev.nightshift.agent.nodeupdate.JobSettings> jobSettings(Reader r, Node at, Map<String, Node> job) {
        int errors = r.errors.size();
        String namespace = r.string(job, "nodeUpdates.job.namespace").filter(ns -> {
            if (ns.matches(DNS_LABEL)) {
                return true;
            }
            r.error(job.get("namespace"), "nodeUpdates.job.namespace",
                    "must be a Kubernetes namespace name (lower-case letters, digits and '-', at most 63), got \"" + ns + "\"");
            return false;
        }).orElse(dev.nightshift.agent.nodeupdate.JobSettings.DEFAULT_NAMESPACE);
        Optional<String> image = r.string(job, "nodeUpdates.job.image").filter(i -> {
            if (!i.isBlank() && !i.matches(".*\\s.*")) {
                return true;
            }
            r.error(job.get("image"), "nodeUpdates.job.image", "must be a container image reference, got \"" + i + "\"");
            return false;
        });
        if (!job.containsKey("image")) {
            r.error(at, "nodeUpdates.job.image", "is required: the updater image run on each node");
        }
        Optional<List<String>> command = r.strings(job, "nodeUpdates.job.command").filter(c -> {
            if (!c.isEmpty() && c.stream().noneMatch(String::isEmpty)) {
                return true;
            }
            r.error(job.get("command"), "nodeUpdates.job.command", "must be a list of at least one non-empty string, such as"
                    + " [\"/bin/update-node\"]");
            return false;
        });
        if (!job.containsKey("command")) {
            r.error(at, "nodeUpdates.job.command", "is required: the updater's command, a list such as [\"/bin/update-node\"]");
        }
        String serviceAccount = r.string(job, "nodeUpdates.job.serviceAccount").filter(sa -> {
            if (sa.length() <= 253 && sa.matches(DNS_SUBDOMAIN)) {
                return true;
            }
            r.error(job.get("serviceAccount"), "nodeUpdates.job.serviceAccount", "must be a Kubernetes name, got \"" + sa + "\"");
            return false;
        }).orElse(dev.nightshift.agent.nodeupdate.JobSettings.DEFAULT_SERVICE_ACCOUNT);
        Optional<Duration> deadline = r.string(job, "nodeUpdates.job.activeDeadline")
                .flatMap(v -> r.duration(job.get("activeDeadline"), "nodeUpdates.job.activeDeadline", v));
        if (r.errors.size() > errors || image.isEmpty() || command.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new dev.nightshift.agent.nodeupdate.JobSettings(namespace, image.get(), command.get(), serviceAccount, deadline));
    }

    /** Reads scalars and sections, collecting every error with its place. */
    private static final class Reader {
        private final String file;
        private final List<String> errors = new ArrayList<>();
        private final Map<Node, Mark> keyMarks = new LinkedHashMap<>();

        Reader(String file) {
            this.file = file;
        }

        void error(Node at, String field, String message) {
            Mark m = at == null ? null : at.getStartMark();
            errors.add(file + ":" + (m == null ? 1 : m.getLine() + 1) + ":" + (m == null ? 1 : m.getColumn() + 1) + ": "
                    + field + ": " + message);
        }

        Map<String, Node> mapping(Node node, String field) {
            Map<String, Node> entries = new LinkedHashMap<>();
            if (!(node instanceof MappingNode map)) {
                error(node, field.isEmpty() ? "(document)" : field, "must be a mapping");
                return entries;
            }
            for (NodeTuple t : map.getValue()) {
                if (t.getKeyNode() instanceof ScalarNode key) {
                    String path = field.isEmpty() ? key.getValue() : field + "." + key.getValue();
                    if (INLINE_SECRETS.contains(key.getValue())) {
                        error(t.getKeyNode(), path, "secrets are never written in the configuration: name the file "
                                + "(" + key.getValue() + "File) or environment variable (" + key.getValue() + "Env) that holds it");
                        continue;
                    }
                    entries.put(key.getValue(), t.getValueNode());
                    keyMarks.put(t.getValueNode(), t.getKeyNode().getStartMark());
                } else {
                    error(t.getKeyNode(), field, "keys must be plain text");
                }
            }
            return entries;
        }

        Map<String, Node> section(Map<String, Node> parent, String field) {
            Node node = parent.get(field.substring(field.lastIndexOf('.') + 1));
            return node == null ? new LinkedHashMap<>() : mapping(node, field);
        }

        Optional<String> string(Map<String, Node> section, String field) {
            Node node = section.get(field.substring(field.lastIndexOf('.') + 1));
            if (node == null) {
                return Optional.empty();
            }
            if (node instanceof ScalarNode s) {
                return Optional.of(s.getValue());
            }
            error(node, field, "must be a single value");
            return Optional.empty();
        }

        /** A list of plain values ({@code [a, b]} or a block sequence). */
        Optional<List<String>> strings(Map<String, Node> section, String field) {
            Node node = section.get(field.substring(field.lastIndexOf('.') + 1));
            if (node == null) {
                return Optional.empty();
            }
            if (!(node instanceof org.yaml.snakeyaml.nodes.SequenceNode list)) {
                error(node, field, "must be a list, such as [\"/bin/update-node\"]");
                return Optional.empty();
            }
            List<String> values = new ArrayList<>();
            for (Node item : list.getValue()) {
                if (!(item instanceof ScalarNode s)) {
                    error(item, field, "must be a list of single values");
                    return Optional.empty();
                }
                values.add(s.getValue());
            }
            return Optional.of(values);
        }

        Optional<URI> uri(Node at, String field, String value) {
            try {
                return Optional.of(new URI(value));
            } catch (URISyntaxException e) {
                error(at, field, "is not a URL: " + e.getReason());
                return Optional.empty();
            }
        }

        Optional<Duration> duration(Node at, String field, String value) {
            Optional<Duration> d = DurationText.parse(value).filter(x -> !x.isZero());
            if (d.isEmpty()) {
                error(at, field, "must be a duration such as 30s, 5m or 1h, got \"" + value + "\"");
            }
            return d;
        }

        Optional<Integer> port(Node at, String field, String value) {
            if (value.matches("[0-9]{1,5}") && Integer.parseInt(value) <= 65535) {
                return Optional.of(Integer.parseInt(value));
            }
            error(at, field, "must be a port from 0 to 65535, got \"" + value + "\"");
            return Optional.empty();
        }

        boolean atLeast(Node at, String field, Duration value, Duration minimum) {
            if (value.compareTo(minimum) < 0) {
                error(at, field, "must be at least " + minimum.toSeconds() + "s");
                return false;
            }
            return true;
        }

        Optional<Integer> positive(Node at, String field, String value) {
            if (value.matches("[0-9]{1,4}") && Integer.parseInt(value) >= 1) {
                return Optional.of(Integer.parseInt(value));
            }
            error(at, field, "must be a whole number from 1, got \"" + value + "\"");
            return Optional.empty();
        }

        boolean bool(Node at, String field, String value) {
            if (value.equals("true") || value.equals("false")) {
                return Boolean.parseBoolean(value);
            }
            error(at, field, "must be true or false, got \"" + value + "\"");
            return false;
        }

        void only(Map<String, Node> section, String field, Set<String> known) {
            section.forEach((key, value) -> {
                if (!known.contains(key)) {
                    Mark m = keyMarks.get(value);
                    errors.add(file + ":" + (m == null ? 1 : m.getLine() + 1) + ":" + (m == null ? 1 : m.getColumn() + 1) + ": "
                            + (field.isEmpty() ? key : field + "." + key) + ": unknown field");
                }
            });
        }
    }
}
