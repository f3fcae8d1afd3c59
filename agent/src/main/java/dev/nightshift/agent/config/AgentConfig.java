package dev.nightshift.agent.config;

import dev.nightshift.agent.reconcile.ManagedPools;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import dev.nightshift.agent.git.GitSourceConfig;
import dev.nightshift.agent.git.Secret;
import dev.nightshift.agent.notify.NotificationSettings;
import dev.nightshift.agent.provider.http.MachineApiEndpoint;
import dev.nightshift.strategies.ValidationStreak;

/**
 * How the agent runs, grouped as its YAML file is ({@link AgentConfigLoader}): where the specs live
 * ({@link Git}), which cluster it manages, its HTTP port, its webhook, leader election, validation
 * and machine provider. Secrets are never values here, only the files or environment variables that
 * hold them. Each group is a record of its own with the {@code with…} its callers need, so that
 * changing one setting copies only its group.
 *
 * @param cluster        the cluster to manage; required to run (file or flag)
 * @param cacheDir       the local bare copy of the repository
 * @param dryRun         plan and report, change nothing
 * @param leaderElection whether replicas elect one leader that acts, the others standing by
 * @param validation     how many consecutive successful cluster validations a pool needs, and how far apart
 * @param provider       the machine provider; none is assumed, since the wrong one acts on the wrong machines
 * @param nodeUpdates    what updates nodes in place and restarts kubelets; by default what the provider's default is
 * @param notifications  where commit statuses and events go ({@code notifications:}); nowhere by default
 * @param pools          which pools the agent acts on ({@code pools: {include, roles}}); every pool by default
 * @param health         where the rollout health checks ask Prometheus ({@code health.prometheus}); none by default
 */
public record AgentConfig(
        Git git,
        Optional<String> cluster,
        Http http,
        Webhook webhook,
        Path cacheDir,
        boolean dryRun,
        LeaderElection leaderElection,
        Validation validation,
        Optional<Provider> provider,
        NodeUpdates nodeUpdates,
        NotificationSettings notifications,
        ManagedPools pools,
        Health health) {

    /** Without {@code health:}: every Prometheus check is unknown, so a pool with one halts after its soak. */
    public AgentConfig(Git git, Optional<String> cluster, Http http, Webhook webhook, Path cacheDir, boolean dryRun,
                       LeaderElection leaderElection, Validation validation, Optional<Provider> provider, NodeUpdates nodeUpdates,
                       NotificationSettings notifications, ManagedPools pools) {
        this(git, cluster, http, webhook, cacheDir, dryRun, leaderElection, validation, provider, nodeUpdates, notifications, pools,
                Health.NONE);
    }

    /** Every pool managed. */
    public AgentConfig(Git git, Optional<String> cluster, Http http, Webhook webhook, Path cacheDir, boolean dryRun,
                       LeaderElection leaderElection, Validation validation, Optional<Provider> provider, NodeUpdates nodeUpdates,
                       NotificationSettings notifications) {
        this(git, cluster, http, webhook, cacheDir, dryRun, leaderElection, validation, provider, nodeUpdates, notifications,
                ManagedPools.ALL);
    }

    /** Without notifications. */
    public AgentConfig(Git git, Optional<String> cluster, Http http, Webhook webhook, Path cacheDir, boolean dryRun,
                       LeaderElection leaderElection, Validation validation, Optional<Provider> provider, NodeUpdates nodeUpdates) {
        this(git, cluster, http, webhook, cacheDir, dryRun, leaderElection, validation, provider, nodeUpdates, NotificationSettings.NONE);
    }

    /**
     * {@code health.prometheus}: the Prometheus the rollout health checks query.
     *
     * @param prometheusUrl its base URL ({@code /api/v1/query} is appended)
     * @param tokenFile     a bearer token, read on every query, never logged
     * @param caFile        PEM CA certificates for {@code https://}
     * @param timeout       per query
     */
    public record Health(Optional<URI> prometheusUrl, Optional<Path> tokenFile, Optional<Path> caFile, Duration timeout) {

        public static final Health NONE = new Health(Optional.empty(), Optional.empty(), Optional.empty(), Duration.ofSeconds(5));

        public Health withPrometheusUrl(URI url) {
            return new Health(Optional.of(url), tokenFile, caFile, timeout);
        }
    }

    public AgentConfig with(Health checks) {
        return new AgentConfig(git, cluster, http, webhook, cacheDir, dryRun, leaderElection, validation, provider, nodeUpdates, notifications, pools, checks);
    }

    /**
     * The spec repository ({@code git:}).
     *
     * @param ref          branch, tag or pinned commit
     * @param path         the spec directory inside the repository
     * @param timeout      how long a poll waits for the Git server to connect or to send anything
     * @param caFile       for HTTPS: PEM CA certificates trusted instead of the JDK's default CAs
     * @param verify       {@code git.verify}: only commits signed by an allowed key are applied; empty: any commit
     */
    public record Git(Optional<URI> url, String ref, String path, Duration pollInterval, Duration timeout,
                      Optional<Path> caFile, Auth auth, Optional<dev.nightshift.agent.git.CommitVerification> verify) {

        public static final Git DEFAULT = new Git(Optional.empty(), "main", "", Duration.ofSeconds(60),
                GitSourceConfig.DEFAULT_TIMEOUT, Optional.empty(), Auth.NONE);

        /**
         * @throws IllegalArgumentException when the URL carries credentials (a token or password before an
         *                                  {@code @}), which JGit would repeat into the log and {@code /status};
         *                                  the message never repeats them
         */
        public Git {
            url.flatMap(GitSourceConfig::credentialsInUrl).ifPresent(why -> {
                throw new IllegalArgumentException("the repository URL (git.url, --repo) " + why);
            });
        }

        /** Without {@code git.verify}. */
        public Git(Optional<URI> url, String ref, String path, Duration pollInterval, Duration timeout, Optional<Path> caFile,
                   Auth auth) {
            this(url, ref, path, pollInterval, timeout, caFile, auth, Optional.empty());
        }

        /** With the flags' values where they are given. */
        Git with(Overrides o) {
            return new Git(o.gitUrl().or(this::url), o.gitRef().orElse(ref), o.gitPath().orElse(path),
                    o.pollInterval().orElse(pollInterval), timeout, o.gitCaFile().or(this::caFile), auth, verify);
        }

        /** Only commits {@code verification} allows are applied. */
        public Git verified(dev.nightshift.agent.git.CommitVerification verification) {
            return new Git(url, ref, path, pollInterval, timeout, caFile, auth, Optional.of(verification));
        }
    }

    /**
     * How the agent authenticates to the repository ({@code git.auth:}): a token for HTTPS, or an
     * SSH key whose server is checked against known hosts.
     *
     * @param user      for HTTPS
     * @param tokenFile for HTTPS; or {@code tokenEnv}
     */
    public record Auth(Optional<String> user, Optional<Path> tokenFile, Optional<String> tokenEnv,
                       Optional<Path> sshKeyFile, Optional<Path> knownHostsFile) {

        public static final Auth NONE = new Auth(Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.empty());
    }

    /** The agent's HTTP port ({@code http:}) for {@code /metrics}, {@code /status}, the probes and the webhook; 0 for any free one. */
    public record Http(int port) {

        public static final Http DEFAULT = new Http(9400);
    }

    /** The secret that signs Git webhooks ({@code webhook:}); without one, {@code /hooks/git} is not served. */
    public record Webhook(Optional<Path> secretFile, Optional<String> secretEnv) {

        public static final Webhook NONE = new Webhook(Optional.empty(), Optional.empty());
        /**
         * The shortest secret taken: anyone who knows or guesses the secret can make the agent poll at
         * will, and an empty one would let an empty {@code X-Gitlab-Token} in, or HMACs anyone can compute.
         * GitHub's and GitLab's own advice is a long random string ({@code openssl rand -hex 32}).
         */
        public static final int MIN_SECRET_BYTES = 16;

        public static Webhook secretFile(Path file) {
            return new Webhook(Optional.of(file), Optional.empty());
        }

        /**
         * The secret, read from its file or environment variable; empty when none is configured (then
         * {@code /hooks/git} is not served).
         *
         * @throws IllegalArgumentException when the configured secret is missing, empty or shorter than
         *                                  {@link #MIN_SECRET_BYTES} (surrounding white space, such as a
         *                                  trailing newline, dropped); the message names the file or the
         *                                  variable, never the content
         * @throws IOException              when the file cannot be read
         */
        public Optional<Secret> secret(Map<String, String> environment) throws IOException {
            if (secretFile.isPresent()) {
                return Optional.of(checked(Secret.fromFile(secretFile.get()), "webhook.secretFile " + secretFile.get()));
            }
            if (secretEnv.isPresent()) {
                String where = "webhook.secretEnv " + secretEnv.get();
                return Optional.of(checked(Secret.fromEnvironment(environment, secretEnv.get())
                        .orElseThrow(() -> new IllegalArgumentException(where + ": the variable is not set or empty")), where));
            }
            return Optional.empty();
        }

        private static Secret checked(Secret secret, String where) {
            int bytes = secret.byteLength();
            if (bytes == 0) {
                throw new IllegalArgumentException(where + ": the webhook secret is empty; give at least " + MIN_SECRET_BYTES
                        + " bytes, e.g. openssl rand -hex 32");
            }
            if (bytes < MIN_SECRET_BYTES) {
                throw new IllegalArgumentException(where + ": the webhook secret is " + bytes + " bytes long; give at least "
                        + MIN_SECRET_BYTES + ", e.g. openssl rand -hex 32");
            }
            return secret;
        }
    }

    /**
     * The machine provider ({@code provider: {type: …}}): what creates and deletes the pools'
     * machines. A mapping, so that a provider's own settings can join {@code type}.
     *
     * @param clusterApi the {@code cluster-api} provider's settings ({@code provider.clusterApi}); the defaults for other types
     * @param http       the {@code http} provider's settings ({@code provider.http}); the defaults for other types
     */
    public record Provider(String type, ClusterApi clusterApi, Http http) {

        /** {@code simulated}: machines become Node objects of the cluster itself; for the embedded cluster and test clusters. */
        public static final String SIMULATED = "simulated";
        /** {@code cluster-api}: machines are Cluster API Machines of one MachineDeployment per pool. */
        public static final String CLUSTER_API = "cluster-api";
        /** {@code http}: machines come from a cloud adapter serving the machine API ({@code provider.http}). */
        public static final String HTTP = "http";
        /** Every provider this release has. */
        public static final List<String> TYPES = List.of(SIMULATED, CLUSTER_API, HTTP);

        /** With the default settings of every provider. */
        public Provider(String type) {
            this(type, ClusterApi.DEFAULT, Http.DEFAULT);
        }

        public Provider(String type, ClusterApi clusterApi) {
            this(type, clusterApi, Http.DEFAULT);
        }

        public Provider(String type, Http http) {
            this(type, ClusterApi.DEFAULT, http);
        }

        /** Another type, the settings kept (a {@code --provider} flag over the file's). */
        public Provider withType(String other) {
            return new Provider(other, clusterApi, http);
        }

        /** Other {@code provider.http} settings. */
        public Provider with(Http other) {
            return new Provider(type, clusterApi, other);
        }

        /**
         * Where the machine API is ({@code provider.http}).
         *
         * @param url       the API's base URL (the paths {@code /v1/…} are appended); required to run
         * @param tokenFile the bearer token's file, read on every request (a secret: only its path is
         *                  ever shown or logged); required to run
         * @param caFile    PEM certificates to trust for an HTTPS URL besides the JDK's
         * @param timeout   how long one request may take before it is retried
         */
        public record Http(Optional<java.net.URI> url, Optional<Path> tokenFile, Optional<Path> caFile, java.time.Duration timeout) {

            public static final java.time.Duration DEFAULT_TIMEOUT = java.time.Duration.ofSeconds(30);
            public static final Http DEFAULT = new Http(Optional.empty(), Optional.empty(), Optional.empty(), DEFAULT_TIMEOUT);

            /** @throws IllegalArgumentException when the URL is plain {@code http://} to a host that is not loopback: the token would travel in clear */
            public Http {
                url.flatMap(MachineApiEndpoint::tokenInClear).ifPresent(why -> {
                    throw new IllegalArgumentException("provider.http.url (--machine-api-url): " + why);
                });
            }

            public Http withUrl(java.net.URI other) {
                return new Http(Optional.of(other), tokenFile, caFile, timeout);
            }

            public Http withTokenFile(Path other) {
                return new Http(url, Optional.of(other), caFile, timeout);
            }
        }

        /**
         * Where the Cluster API objects are ({@code provider.clusterApi}).
         *
         * @param namespace      the namespace of the MachineDeployments
         * @param kubeconfigFile a kubeconfig for the management cluster that holds the Cluster API
         *                       objects, when it is not the managed cluster; a secret: only its path
         *                       is ever shown or logged
         * @param infrastructure where the pool's fields go in infrastructure template kinds beyond the
         *                       built-in ones ({@code provider.clusterApi.infrastructure}), by kind
         */
        public record ClusterApi(String namespace, Optional<Path> kubeconfigFile,
                                 java.util.Map<String, dev.nightshift.agent.provider.capi.InfrastructureMapping> infrastructure) {

            public static final ClusterApi DEFAULT = new ClusterApi("default", Optional.empty());

            public ClusterApi {
                infrastructure = java.util.Map.copyOf(infrastructure);
            }

            public ClusterApi(String namespace, Optional<Path> kubeconfigFile) {
                this(namespace, kubeconfigFile, java.util.Map.of());
            }
        }
    }

    /**
     * What updates nodes without replacing their machines ({@code nodeUpdates: {type: …}}): in-place
     * updates and kubelet restarts.
     *
     * @param type {@link #PROVIDER}, {@link #JOB} or {@link #NONE}; empty for the provider's default ({@link #typeWith})
     * @param job  {@code nodeUpdates.job}: the updater Jobs' settings, required with {@link #JOB}
     */
    public record NodeUpdates(Optional<String> type, Optional<dev.nightshift.agent.nodeupdate.JobSettings> job) {

        /** The machine provider's own node updates ({@code simulated} has them; {@code cluster-api} has none). */
        public static final String PROVIDER = "provider";
        /** Node updates by privileged Kubernetes Jobs pinned to the nodes ({@code nodeUpdates.job}), with any provider. */
        public static final String JOB = "job";
        /** No node updates: in-place and kubelet-only changes are reported, never executed. */
        public static final String NONE = "none";
        /** Every type there is. */
        public static final List<String> TYPES = List.of(PROVIDER, JOB, NONE);
        /** Every type this release runs. */
        public static final List<String> RUNNABLE = List.of(PROVIDER, JOB, NONE);

        public static final NodeUpdates DEFAULT = new NodeUpdates(Optional.empty(), Optional.empty());

        public NodeUpdates(Optional<String> type) {
            this(type, Optional.empty());
        }

        public static NodeUpdates of(String type) {
            return new NodeUpdates(Optional.of(type));
        }

        /** Node updates by Jobs with these settings. */
        public static NodeUpdates job(dev.nightshift.agent.nodeupdate.JobSettings settings) {
            return new NodeUpdates(Optional.of(JOB), Optional.of(settings));
        }

        /** Another type (a flag's), the file's Job settings kept. */
        public NodeUpdates withType(String other) {
            return new NodeUpdates(Optional.of(other), job);
        }

        /**
         * The type in force with this provider: the one named, else {@code provider} for
         * {@code simulated} and {@code none} for {@code cluster-api}, which has no node updates
         * of its own.
         */
        public String typeWith(Provider provider) {
            return type.orElse(provider.type().equals(Provider.CLUSTER_API) ? NONE : PROVIDER);
        }

        /** Whether the type in force is the default rather than one named. */
        public boolean defaulted() {
            return type.isEmpty();
        }

        /**
         * Why this release cannot run these node updates with this provider, or empty: an unknown
         * type, {@code job} without its settings, or {@code provider} with a provider that has
         * no node updates of its own.
         */
        public Optional<String> refusal(Provider provider) {
            String t = typeWith(provider);
            if (!TYPES.contains(t)) {
                return Optional.of("unknown node updates \"" + t + "\"; one of " + String.join(", ", TYPES));
            }
            if (t.equals(JOB) && job.isEmpty()) {
                return Optional.of("job needs nodeUpdates.job in the configuration file: at least its image and command"
                        + " (the updater run on each node)");
            }
            if (t.equals(PROVIDER) && provider.type().equals(Provider.CLUSTER_API)) {
                return Optional.of("the cluster-api provider has no node updates of its own (Cluster API's in-place"
                        + " update hooks are alpha): use none (in-place and kubelet-only changes are reported, never"
                        + " executed) or job (node updates by privileged Kubernetes Jobs on the nodes, nodeUpdates.job)");
            }
            return Optional.empty();
        }
    }

    /**
     * Leader election through a {@code coordination.k8s.io} Lease in {@code nightshift-system}:
     * one replica acts, the others are ready but idle and take over when its lease expires.
     *
     * @param leaseDuration how long a leader's lease holds without renewal; renewal and retry
     *                      follow from it as in Kubernetes' own controllers (2/3 and 2/15 of it,
     *                      the retry at most {@link #LONGEST_RETRY})
     * @param identity      this replica's name in the lease (the pod name in a cluster)
     */
    public record LeaderElection(boolean enabled, String leaseName, Duration leaseDuration, String identity) {

        public static final LeaderElection OFF = new LeaderElection(false, "nightshift-leader", Duration.ofSeconds(15),
                // A pod's name is unique; a host name is not (two agents on one host), so it gets a suffix.
                Optional.ofNullable(System.getenv("POD_NAME")).orElseGet(() -> Optional.ofNullable(System.getenv("HOSTNAME"))
                        .orElse("nightshift") + "_" + UUID.randomUUID().toString().substring(0, 8)));

        /** The longest time between two tries of a standby to take the lease, and of the leader to renew it. */
        public static final Duration LONGEST_RETRY = Duration.ofMillis(1500);

        public LeaderElection {
            if (leaseDuration.compareTo(Duration.ofSeconds(1)) < 0) {
                throw new IllegalArgumentException("leaseDuration must be at least 1s");
            }
        }

        public Duration renewDeadline() {
            return leaseDuration.multipliedBy(2).dividedBy(3);
        }

        /**
         * 2/15 of the lease, at most {@link #LONGEST_RETRY}: a standby tries the lease this often,
         * jittered up to 2.2 times as long, so it finds a lease the leader released on stopping
         * within 3.3 s whatever the lease's duration.
         */
        public Duration retryPeriod() {
            Duration share = leaseDuration.multipliedBy(2).dividedBy(15);
            return share.compareTo(LONGEST_RETRY) < 0 ? share : LONGEST_RETRY;
        }

        public LeaderElection enabled(boolean on) {
            return new LeaderElection(on, leaseName, leaseDuration, identity);
        }
    }

    /**
     * Cluster validation before a pool starts and between batches, as kops' {@code --validate-count}:
     * {@code consecutive} successful checks, each at least {@code interval} after the one before.
     */
    public record Validation(int consecutive, Duration interval) {

        public static final Validation DEFAULT = new Validation(1, ValidationStreak.DEFAULT_INTERVAL);

        public Validation {
            if (consecutive < 1) {
                throw new IllegalArgumentException("consecutive validations must be at least 1");
            }
        }

        public Validation consecutive(int checks) {
            return new Validation(checks, interval);
        }
    }

    public static final AgentConfig DEFAULTS = new AgentConfig(Git.DEFAULT, Optional.empty(), Http.DEFAULT, Webhook.NONE,
            Path.of(System.getProperty("java.io.tmpdir"), "nightshift"), false, LeaderElection.OFF, Validation.DEFAULT,
            Optional.empty(), NodeUpdates.DEFAULT);

    /**
     * Values given on the command line; each one present replaces the file's. Flat, as the flags
     * are; {@link #with(Overrides)} applies them group by group.
     */
    public record Overrides(Optional<URI> gitUrl, Optional<String> gitRef, Optional<String> gitPath,
                            Optional<Duration> pollInterval, Optional<String> cluster, Optional<Integer> httpPort,
                            Optional<Path> cacheDir, Optional<Boolean> dryRun, Optional<Path> gitCaFile) {

        public static final Overrides NONE = new Overrides(Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty());

        /** Without a CA file. */
        public Overrides(Optional<URI> gitUrl, Optional<String> gitRef, Optional<String> gitPath,
                         Optional<Duration> pollInterval, Optional<String> cluster, Optional<Integer> httpPort,
                         Optional<Path> cacheDir, Optional<Boolean> dryRun) {
            this(gitUrl, gitRef, gitPath, pollInterval, cluster, httpPort, cacheDir, dryRun, Optional.empty());
        }
    }

    public AgentConfig with(Overrides o) {
        return new AgentConfig(git.with(o), o.cluster().or(this::cluster), o.httpPort().map(Http::new).orElse(http), webhook,
                o.cacheDir().orElse(cacheDir), o.dryRun().orElse(dryRun), leaderElection, validation, provider, nodeUpdates, notifications, pools, health);
    }

    /** Another {@code git:} group. */
    public AgentConfig with(Git source) {
        return new AgentConfig(source, cluster, http, webhook, cacheDir, dryRun, leaderElection, validation, provider, nodeUpdates, notifications, pools, health);
    }

    public AgentConfig with(Webhook hook) {
        return new AgentConfig(git, cluster, http, hook, cacheDir, dryRun, leaderElection, validation, provider, nodeUpdates, notifications, pools, health);
    }

    public AgentConfig with(LeaderElection election) {
        return new AgentConfig(git, cluster, http, webhook, cacheDir, dryRun, election, validation, provider, nodeUpdates, notifications, pools, health);
    }

    public AgentConfig with(Validation checks) {
        return new AgentConfig(git, cluster, http, webhook, cacheDir, dryRun, leaderElection, checks, provider, nodeUpdates, notifications, pools, health);
    }

    public AgentConfig with(Provider machines) {
        return new AgentConfig(git, cluster, http, webhook, cacheDir, dryRun, leaderElection, validation, Optional.of(machines),
                nodeUpdates, notifications, pools, health);
    }

    /**
     * The node updates type in force: the one named, else the provider's default; with no provider
     * named (an agent built in a test, whose backend is given), the provider's own.
     */
    public String nodeUpdatesType() {
        return provider.map(nodeUpdates::typeWith).orElse(nodeUpdates.type().orElse(NodeUpdates.PROVIDER));
    }

    public AgentConfig with(NodeUpdates updates) {
        return new AgentConfig(git, cluster, http, webhook, cacheDir, dryRun, leaderElection, validation, provider, updates, notifications, pools, health);
    }

    /** Other {@code notifications:}. */
    public AgentConfig with(NotificationSettings other) {
        return new AgentConfig(git, cluster, http, webhook, cacheDir, dryRun, leaderElection, validation, provider, nodeUpdates, other, pools, health);
    }

    /** Other {@code pools:}. */
    public AgentConfig with(ManagedPools managed) {
        return new AgentConfig(git, cluster, http, webhook, cacheDir, dryRun, leaderElection, validation, provider, nodeUpdates,
                notifications, managed, health);
    }
}
