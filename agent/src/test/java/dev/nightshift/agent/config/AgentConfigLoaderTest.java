package dev.nightshift.agent.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.nightshift.agent.git.CommitVerification;
import dev.nightshift.agent.nodeupdate.JobSettings;
import dev.nightshift.spec.yaml.YamlDocuments;

class AgentConfigLoaderTest {

    private final AgentConfigLoader loader = new AgentConfigLoader();

    @TempDir
    Path tmp;

    @Test
    void aFullConfigurationIsRead() {
        AgentConfigLoader.Result r = loader.parse("agent.yaml", """
                git:
                  url: https://git.example.com/platform/clusters.git
                  ref: release
                  path: clusters/prod
                  pollInterval: 2m
                  timeout: 20s
                  caFile: /etc/nightshift/git-ca.pem
                  auth: {user: nightshift, tokenFile: /var/run/secrets/git/token}
                cluster: prod-eu1
                http: {port: 9500}
                webhook: {secretEnv: NIGHTSHIFT_WEBHOOK_SECRET}
                cacheDir: /var/cache/nightshift
                dryRun: true
                """);

        assertThat(r.errors()).isEmpty();
        AgentConfig c = r.config().orElseThrow();
        assertThat(c.git().url()).contains(URI.create("https://git.example.com/platform/clusters.git"));
        assertThat(c.git().ref()).isEqualTo("release");
        assertThat(c.git().path()).isEqualTo("clusters/prod");
        assertThat(c.git().pollInterval()).isEqualTo(Duration.ofMinutes(2));
        assertThat(c.git().timeout()).isEqualTo(Duration.ofSeconds(20));
        assertThat(c.git().auth().tokenFile()).contains(Path.of("/var/run/secrets/git/token"));
        assertThat(c.git().caFile()).contains(Path.of("/etc/nightshift/git-ca.pem"));
        assertThat(c.cluster()).contains("prod-eu1");
        assertThat(c.http().port()).isEqualTo(9500);
        assertThat(c.webhook().secretEnv()).contains("NIGHTSHIFT_WEBHOOK_SECRET");
        assertThat(c.dryRun()).isTrue();
    }

    @Test
    void anEmptyFileGivesTheDefaults() {
        assertThat(loader.parse("agent.yaml", "").config()).contains(AgentConfig.DEFAULTS);
    }

    @Test
    void theDefaultsAreTheDocumentedOnes() {
        AgentConfig d = AgentConfig.DEFAULTS;

        assertThat(d.git().pollInterval()).isEqualTo(java.time.Duration.ofSeconds(60));
        assertThat(d.git().timeout()).isEqualTo(java.time.Duration.ofSeconds(60));
        assertThat(d.http().port()).isEqualTo(9400);
        assertThat(d.git().ref()).isEqualTo("main");
        assertThat(d.git().path()).isEmpty();
        assertThat(d.dryRun()).isFalse();
        assertThat(d.leaderElection().enabled()).isFalse();
        assertThat(d.leaderElection().leaseDuration()).isEqualTo(java.time.Duration.ofSeconds(15));
        assertThat(d.validation().consecutive()).isEqualTo(1);
        assertThat(d.validation().interval()).isEqualTo(java.time.Duration.ofSeconds(10));
        assertThat(d.provider()).as("no provider is assumed").isEmpty();
    }

    @Test
    void theProviderIsReadFromItsType() {
        AgentConfigLoader.Result r = loader.parse("agent.yaml", "provider: {type: simulated}\n");

        assertThat(r.errors()).isEmpty();
        assertThat(r.config().orElseThrow().provider()).contains(new AgentConfig.Provider("simulated"));
    }

    @Test
    void aProviderWithoutTypeOrOfAnUnknownTypeOrWithUnknownKeysIsRefusedWithItsPlace() {
        assertThat(loader.parse("agent.yaml", "provider: {}\n").errors())
                .containsExactly("agent.yaml:1:11: provider.type: is required: one of simulated, cluster-api, http");
        assertThat(loader.parse("agent.yaml", "provider: {type: aws}\n").errors())
                .containsExactly("agent.yaml:1:18: provider.type: unknown provider \"aws\"; this release has: simulated, cluster-api, http");
        assertThat(loader.parse("agent.yaml", "provider: {type: simulated, region: eu}\n").errors())
                .containsExactly("agent.yaml:1:29: provider.region: unknown field");
    }

    @Test
    void theClusterApiProviderIsReadWithItsNamespaceAndTheManagementClustersKubeconfigFile() {
        AgentConfigLoader.Result r = loader.parse("agent.yaml", """
                provider:
                  type: cluster-api
                  clusterApi:
                    namespace: capi-prod
                    kubeconfigFile: /etc/nightshift/secrets/management-kubeconfig
                """);

        assertThat(r.errors()).isEmpty();
        assertThat(r.config().orElseThrow().provider()).contains(new AgentConfig.Provider("cluster-api",
                new AgentConfig.Provider.ClusterApi("capi-prod", Optional.of(Path.of("/etc/nightshift/secrets/management-kubeconfig")))));
    }

    @Test
    void clusterApiSettingsDefaultToTheDefaultNamespaceInTheManagedCluster() {
        AgentConfig c = loader.parse("agent.yaml", "provider: {type: cluster-api}\n").config().orElseThrow();

        assertThat(c.provider().orElseThrow().clusterApi()).isEqualTo(new AgentConfig.Provider.ClusterApi("default", Optional.empty()));
    }

    @Test
    void clusterApiSettingsWithUnknownKeysABadNamespaceOrAnotherProviderAreRefusedWithTheirPlace() {
        assertThat(loader.parse("agent.yaml", "provider:\n  type: cluster-api\n  clusterApi: {namespace: default, cluster: x}\n")
                .errors()).containsExactly("agent.yaml:3:36: provider.clusterApi.cluster: unknown field");
        assertThat(loader.parse("agent.yaml", "provider:\n  type: cluster-api\n  clusterApi: {namespace: Prod_1}\n").errors())
                .containsExactly("agent.yaml:3:27: provider.clusterApi.namespace: must be a Kubernetes namespace name"
                        + " (lower-case letters, digits and '-', at most 63), got \"Prod_1\"");
        assertThat(loader.parse("agent.yaml", "provider:\n  type: cluster-api\n  clusterApi: {kubeconfigFile: [a, b]}\n")
                .errors()).containsExactly("agent.yaml:3:32: provider.clusterApi.kubeconfigFile: must be a string, got a list");
        assertThat(loader.parse("agent.yaml", "provider:\n  type: simulated\n  clusterApi: {namespace: default}\n").errors())
                .containsExactly("agent.yaml:3:15: provider.clusterApi: is for provider type cluster-api, not simulated");
    }

    @Test
    void aGitUrlCarryingATokenOrAPasswordIsRefusedAtItsLineWithoutRepeatingIt() {
        assertThat(loader.parse("agent.yaml", "git: {url: \"https://ghp_t0k3n@github.com/example/clusters.git\"}\n").errors())
                .containsExactly("agent.yaml:1:12: git.url: must not carry credentials before an @ (https://github.com/example/clusters.git):"
                        + " credentials come from files: git.auth.tokenFile (or tokenEnv) and git.auth.user for https://,"
                        + " git.auth.sshKeyFile for ssh://");
        assertThat(loader.parse("agent.yaml", "git:\n  url: https://nightshift:hunter2@git.example.com/c.git\n").errors())
                .singleElement().asString().startsWith("agent.yaml:2:8: git.url: must not carry credentials")
                .doesNotContain("hunter2").doesNotContain("nightshift:");
        assertThat(loader.parse("agent.yaml", "git:\n  url: ssh://git:hunter2@git.example.com/c.git\n").errors())
                .singleElement().asString().contains("git.url: must not carry a password").doesNotContain("hunter2");
    }

    @Test
    void anSshUrlMayNameItsUser() {
        AgentConfigLoader.Result r = loader.parse("agent.yaml", """
                git:
                  url: ssh://git@git.example.com/c.git
                  auth: {sshKeyFile: /k, knownHostsFile: /h}
                """);

        assertThat(r.errors()).isEmpty();
        assertThat(r.config().orElseThrow().git().url()).contains(URI.create("ssh://git@git.example.com/c.git"));
    }

    @Test
    void aRepositoryFlagCarryingATokenIsRefusedWithoutRepeatingIt() {
        AgentConfig.Overrides repo = new AgentConfig.Overrides(Optional.of(URI.create("https://ghp_t0k3n@github.com/example/c.git")),
                Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty());

        assertThatThrownBy(() -> AgentConfig.DEFAULTS.with(repo)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("the repository URL (git.url, --repo) must not carry credentials before an @"
                        + " (https://github.com/example/c.git): credentials come from files")
                .message().doesNotContain("ghp_t0k3n");
    }

    @Test
    void aMachineApiUrlOfPlainHttpToAHostThatIsNotLoopbackIsRefusedAtItsLine() {
        assertThat(loader.parse("agent.yaml", "provider:\n  type: http\n  http: {url: \"http://machines.example.com:9500\"}\n").errors())
                .containsExactly("agent.yaml:3:15: provider.http.url: machine API URL http://machines.example.com:9500 is plain"
                        + " http:// to a host that is not loopback: the bearer token would cross the network in clear; use https://"
                        + " (provider.http.caFile for a private CA), or http:// only to 127.0.0.0/8, ::1 or localhost");
        assertThat(loader.parse("agent.yaml", "provider:\n  type: http\n  http: {url: \"http://127.0.0.1:9500\"}\n").errors()).isEmpty();
        assertThat(loader.parse("agent.yaml", "provider:\n  type: http\n  http: {url: \"http://localhost:9500\"}\n").errors()).isEmpty();
    }

    @Test
    void aMachineApiUrlFlagOfPlainHttpToAHostThatIsNotLoopbackIsRefused() {
        // As run does with --machine-api-url.
        AgentConfig.Provider.Http settings = AgentConfig.Provider.Http.DEFAULT;

        assertThatThrownBy(() -> settings.withUrl(URI.create("http://machines.example.com:9500")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("provider.http.url (--machine-api-url): machine API URL http://machines.example.com:9500 is"
                        + " plain http:// to a host that is not loopback");
        assertThat(settings.withUrl(URI.create("http://127.0.0.1:9500")).url()).contains(URI.create("http://127.0.0.1:9500"));
    }

    @Test
    void theHttpProviderReadsItsUrlTokenFileCaFileAndTimeout() {
        AgentConfigLoader.Result r = loader.parse("agent.yaml", """
                provider:
                  type: http
                  http: {url: "https://machines.example.com/api", tokenFile: /var/run/secrets/machine-api/token,
                         caFile: /etc/nightshift/ca.pem, timeout: 10s}
                """);

        assertThat(r.errors()).isEmpty();
        assertThat(r.config().orElseThrow().provider().orElseThrow()).isEqualTo(new AgentConfig.Provider("http",
                new AgentConfig.Provider.Http(Optional.of(java.net.URI.create("https://machines.example.com/api")),
                        Optional.of(Path.of("/var/run/secrets/machine-api/token")), Optional.of(Path.of("/etc/nightshift/ca.pem")),
                        Duration.ofSeconds(10))));
        AgentConfig bare = loader.parse("agent.yaml", "provider: {type: http}\n").config().orElseThrow();
        assertThat(bare.provider().orElseThrow().http()).as("the URL and token file may come from flags")
                .isEqualTo(AgentConfig.Provider.Http.DEFAULT);
        assertThat(bare.provider().orElseThrow().http().timeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(bare.nodeUpdates().typeWith(bare.provider().orElseThrow())).as("the machine API updates machines itself")
                .isEqualTo("provider");
    }

    @Test
    void badHttpProviderSettingsAreErrorsAtTheirLine() {
        assertThat(loader.parse("agent.yaml", "provider:\n  type: http\n  http: {url: \"ftp://x/\"}\n").errors())
                .containsExactly("agent.yaml:3:15: provider.http.url: must be an http:// or https:// URL with a host, got \"ftp://x/\"");
        assertThat(loader.parse("agent.yaml", "provider:\n  type: http\n  http: {url: \"https://me:secret@x/\"}\n").errors())
                .singleElement().asString().contains("provider.http.url").doesNotContain("secret@");
        assertThat(loader.parse("agent.yaml", "provider:\n  type: http\n  http: {timeout: 0s}\n").errors())
                .singleElement().asString().startsWith("agent.yaml:3:19: provider.http.timeout:");
        assertThat(loader.parse("agent.yaml", "provider:\n  type: http\n  http: {token: abc}\n").errors())
                .singleElement().asString().startsWith("agent.yaml:3:10: provider.http.token: secrets are never written in the configuration");
        assertThat(loader.parse("agent.yaml", "provider:\n  type: simulated\n  http: {url: \"http://127.0.0.1\"}\n").errors())
                .containsExactly("agent.yaml:3:9: provider.http: is for provider type http, not simulated");
    }

    @Test
    void nodeUpdatesDefaultToTheProvidersOwnForSimulatedAndToNoneForClusterApi() {
        AgentConfig simulated = loader.parse("agent.yaml", "provider: {type: simulated}\n").config().orElseThrow();
        AgentConfig capi = loader.parse("agent.yaml", "provider: {type: cluster-api}\n").config().orElseThrow();

        assertThat(simulated.nodeUpdates().defaulted()).isTrue();
        assertThat(simulated.nodeUpdates().typeWith(simulated.provider().orElseThrow())).isEqualTo("provider");
        assertThat(capi.nodeUpdates().typeWith(capi.provider().orElseThrow())).isEqualTo("none");
    }

    @Test
    void nodeUpdatesTypeIsRead() {
        AgentConfigLoader.Result r = loader.parse("agent.yaml", "provider: {type: simulated}\nnodeUpdates: {type: none}\n");

        assertThat(r.errors()).isEmpty();
        assertThat(r.config().orElseThrow().nodeUpdates()).isEqualTo(AgentConfig.NodeUpdates.of("none"));
        assertThat(loader.parse("agent.yaml", "provider: {type: cluster-api}\nnodeUpdates: {type: none}\n").errors()).isEmpty();
    }

    @Test
    void theProvidersNodeUpdatesWithClusterApiAreRefusedWithTheirPlaceNamingJobAndNone() {
        AgentConfigLoader.Result r = loader.parse("agent.yaml", """
                provider:
                  type: cluster-api
                nodeUpdates:
                  type: provider
                """);

        assertThat(r.config()).isEmpty();
        assertThat(r.errors()).singleElement().asString()
                .startsWith("agent.yaml:4:9: nodeUpdates.type: the cluster-api provider has no node updates of its own")
                .contains("use none (in-place and kubelet-only changes are reported, never executed)")
                .contains("or job (");
    }

    @Test
    void jobNodeUpdatesAreReadWithTheirDefaultsAndWithEitherProvider() {
        for (String provider : List.of("simulated", "cluster-api")) {
            AgentConfigLoader.Result r = loader.parse("agent.yaml", "provider: {type: " + provider + "}\n" + """
                    nodeUpdates:
                      type: job
                      job:
                        image: registry.example.com/platform/node-updater:1.4
                        command: ["/bin/update-node", "--verbose"]
                    """);

            assertThat(r.errors()).isEmpty();
            assertThat(r.config().orElseThrow().nodeUpdates().job()).contains(new JobSettings("nightshift-node-updates",
                    "registry.example.com/platform/node-updater:1.4", List.of("/bin/update-node", "--verbose"), "nightshift-node-updater",
                    Optional.empty()));
            assertThat(r.config().orElseThrow().nodeUpdatesType()).isEqualTo("job");
        }
    }

    @Test
    void everyJobSettingIsRead() {
        AgentConfigLoader.Result r = loader.parse("agent.yaml", """
                nodeUpdates:
                  type: job
                  job:
                    namespace: updates
                    image: updater:2
                    command:
                      - /bin/sh
                      - -c
                      - update
                    serviceAccount: updater
                    activeDeadline: 30m
                """);

        assertThat(r.errors()).isEmpty();
        assertThat(r.config().orElseThrow().nodeUpdates().job()).contains(new JobSettings("updates", "updater:2",
                List.of("/bin/sh", "-c", "update"), "updater", Optional.of(java.time.Duration.ofMinutes(30))));
    }

    @Test
    void jobNodeUpdatesWithoutTheirSettingsOrWithBadOnesAreRefusedWithTheirPlace() {
        assertThat(loader.parse("agent.yaml", "nodeUpdates: {type: job}\n").errors())
                .containsExactly("agent.yaml:1:21: nodeUpdates.job: is required with type job: at least the updater's image and command");
        assertThat(loader.parse("agent.yaml", "nodeUpdates:\n  type: job\n  job: {namespace: x}\n").errors()).containsExactly(
                "agent.yaml:3:8: nodeUpdates.job.image: is required: the updater image run on each node",
                "agent.yaml:3:8: nodeUpdates.job.command: is required: the updater's command, a list such as [\"/bin/update-node\"]");
        assertThat(loader.parse("agent.yaml", """
                nodeUpdates:
                  type: job
                  job:
                    namespace: Node_Updates
                    image: u:1
                    command: /bin/update-node
                    activeDeadline: soon
                    user: root
                """).errors()).containsExactly(
                "agent.yaml:4:16: nodeUpdates.job.namespace: must be a Kubernetes namespace name (lower-case letters, digits and '-',"
                        + " at most 63), got \"Node_Updates\"",
                "agent.yaml:6:14: nodeUpdates.job.command: must be a list, such as [\"/bin/update-node\"], got \"/bin/update-node\"",
                "agent.yaml:7:21: nodeUpdates.job.activeDeadline: must be a duration such as 30s, 5m or 1h, got \"soon\"",
                "agent.yaml:8:5: nodeUpdates.job.user: unknown field");
        assertThat(loader.parse("agent.yaml", "nodeUpdates: {type: none, job: {image: u:1}}\n").errors())
                .containsExactly("agent.yaml:1:32: nodeUpdates.job: is for type job, not none");
    }

    @Test
    void nodeUpdatesWithoutTypeOrOfAnUnknownTypeAreRefusedWithTheirPlace() {
        assertThat(loader.parse("agent.yaml", "nodeUpdates: {}\n").errors())
                .containsExactly("agent.yaml:1:14: nodeUpdates.type: is required: one of provider, job, none");
        assertThat(loader.parse("agent.yaml", "nodeUpdates: {type: ssh}\n").errors())
                .containsExactly("agent.yaml:1:21: nodeUpdates.type: unknown node updates \"ssh\"; one of provider, job, none");
        assertThat(loader.parse("agent.yaml", "nodeUpdates: none\n").errors())
                .containsExactly("agent.yaml:1:14: nodeUpdates: must be a mapping, got \"none\"");
    }

    @Test
    void anInlineTokenIsRefusedWithItsPlace() {
        AgentConfigLoader.Result r = loader.parse("agent.yaml", """
                git:
                  url: https://git.example.com/c.git
                  auth:
                    user: nightshift
                    token: hunter2
                """);

        assertThat(r.config()).isEmpty();
        assertThat(r.errors()).singleElement().satisfies(e -> assertThat(e)
                .startsWith("agent.yaml:5:5: git.auth.token: secrets are never written in the configuration")
                .contains("tokenFile").doesNotContain("hunter2"));
    }

    @Test
    void anSshKeyWithoutKnownHostsIsRefused() {
        AgentConfigLoader.Result r = loader.parse("agent.yaml", """
                git:
                  url: ssh://git@git.example.com/c.git
                  auth: {sshKeyFile: /keys/id_ed25519}
                """);

        assertThat(r.errors()).singleElement().satisfies(e -> assertThat(e)
                .contains("git.auth.knownHostsFile: is required with sshKeyFile: SSH host keys are always verified"));
    }

    @Test
    void unknownFieldsAndBadValuesAreAllReported() {
        AgentConfigLoader.Result r = loader.parse("agent.yaml", """
                git:
                  url: https://git.example.com/c.git
                  pollInterval: soon
                  branch: main
                  timeout: 0s
                http: {port: 99999}
                dryRun: yes
                """);

        assertThat(r.errors()).containsExactlyInAnyOrder(
                "agent.yaml:3:17: git.pollInterval: must be a duration such as 30s, 5m or 1h, got \"soon\"",
                "agent.yaml:4:3: git.branch: unknown field",
                "agent.yaml:5:12: git.timeout: must be a duration such as 30s, 5m or 1h, got \"0s\"",
                "agent.yaml:6:14: http.port: must be a port from 0 to 65535, got \"99999\"",
                "agent.yaml:7:9: dryRun: must be true or false, got \"yes\"");
    }

    @Test
    void invalidYamlNamesItsPlace() {
        AgentConfigLoader.Result r = loader.parse("agent.yaml", "git: {url: [\n");

        assertThat(r.errors()).singleElement().satisfies(e -> assertThat(e).startsWith("agent.yaml:2:1: invalid YAML"));
    }

    @Test
    void flagsOverrideTheFile() {
        AgentConfig file = loader.parse("agent.yaml", "git: {url: https://a.example/c.git, ref: main}\nhttp: {port: 9500}\n")
                .config().orElseThrow();

        AgentConfig c = file.with(new AgentConfig.Overrides(Optional.empty(), Optional.of("release"), Optional.empty(),
                Optional.empty(), Optional.of("prod"), Optional.of(9600), Optional.empty(), Optional.of(true)));

        assertThat(c.git().url()).contains(URI.create("https://a.example/c.git"));
        assertThat(c.git().ref()).isEqualTo("release");
        assertThat(c.cluster()).contains("prod");
        assertThat(c.http().port()).isEqualTo(9600);
        assertThat(c.dryRun()).isTrue();
        assertThat(c.git().caFile()).isEmpty();
    }

    @Test
    void aFlagReplacesOnlyItsOwnSettingAndKeepsTheRestOfItsGroup() {
        AgentConfig file = loader.parse("agent.yaml", """
                git:
                  url: https://a.example/c.git
                  timeout: 20s
                  auth: {user: nightshift, tokenEnv: GIT_TOKEN}
                webhook: {secretEnv: HOOK}
                leaderElection: {enabled: true, leaseDuration: 30s}
                validation: {consecutive: 2}
                provider: {type: simulated}
                """).config().orElseThrow();

        AgentConfig c = file.with(new AgentConfig.Overrides(Optional.empty(), Optional.of("release"), Optional.empty(),
                Optional.of(Duration.ofSeconds(5)), Optional.of("prod"), Optional.empty(), Optional.empty(), Optional.empty()));

        assertThat(c.git()).isEqualTo(new AgentConfig.Git(Optional.of(URI.create("https://a.example/c.git")), "release", "",
                Duration.ofSeconds(5), Duration.ofSeconds(20), Optional.empty(), new AgentConfig.Auth(Optional.of("nightshift"),
                Optional.empty(), Optional.of("GIT_TOKEN"), Optional.empty(), Optional.empty())));
        assertThat(c).usingRecursiveComparison().ignoringFields("git", "cluster").isEqualTo(file);
        assertThat(c.with(c.validation().consecutive(4)).validation()).isEqualTo(new AgentConfig.Validation(4, file.validation().interval()));
        assertThat(c.with(c.leaderElection().enabled(false))).usingRecursiveComparison().ignoringFields("leaderElection.enabled")
                .isEqualTo(c);
    }

    @Test
    void theCaFileFlagReplacesTheFilesCaFile() {
        AgentConfig file = loader.parse("agent.yaml", "git: {url: https://a.example/c.git, caFile: /etc/a.pem}\n")
                .config().orElseThrow();

        AgentConfig c = file.with(new AgentConfig.Overrides(Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.of(Path.of("/etc/b.pem"))));

        assertThat(file.git().caFile()).contains(Path.of("/etc/a.pem"));
        assertThat(c.git().caFile()).contains(Path.of("/etc/b.pem"));
        assertThat(file.with(AgentConfig.Overrides.NONE).git().caFile()).as("kept without the flag").contains(Path.of("/etc/a.pem"));
    }

    @Test
    void aCaFileUnderAuthIsAnUnknownField() {
        AgentConfigLoader.Result r = loader.parse("agent.yaml", """
                git:
                  url: https://git.example.com/c.git
                  auth: {caFile: /etc/a.pem}
                """);

        assertThat(r.errors()).containsExactly("agent.yaml:3:10: git.auth.caFile: unknown field");
    }

    @Test
    void leaderElectionAndValidationAreRead() {
        AgentConfig c = loader.parse("agent.yaml", """
                leaderElection: {enabled: true, leaseName: ns-lease, leaseDuration: 30s}
                validation: {consecutive: 3, interval: 20s}
                """).config().orElseThrow();

        assertThat(c.leaderElection().enabled()).isTrue();
        assertThat(c.leaderElection().leaseName()).isEqualTo("ns-lease");
        assertThat(c.leaderElection().leaseDuration()).hasSeconds(30);
        assertThat(c.leaderElection().renewDeadline()).hasSeconds(20);
        assertThat(c.leaderElection().retryPeriod()).as("2/15 of 30 s is 4 s, above the longest retry")
                .isEqualTo(java.time.Duration.ofMillis(1500));
        assertThat(new AgentConfig.LeaderElection(true, "l", java.time.Duration.ofSeconds(3), "me").retryPeriod())
                .as("2/15 of a short lease").isEqualTo(java.time.Duration.ofMillis(400));
        assertThat(c.validation()).isEqualTo(new AgentConfig.Validation(3, java.time.Duration.ofSeconds(20)));
        assertThat(AgentConfig.DEFAULTS.leaderElection().enabled()).as("off unless asked for").isFalse();
        assertThat(AgentConfig.DEFAULTS.validation().consecutive()).isEqualTo(1);
    }

    @Test
    void badLeaderElectionAndValidationValuesNameTheirPlace() {
        AgentConfigLoader.Result r = loader.parse("agent.yaml", """
                leaderElection: {enabled: yes, leaseDuration: 1s, term: 3}
                validation: {consecutive: 0}
                """);

        assertThat(r.config()).isEmpty();
        assertThat(r.errors()).containsExactlyInAnyOrder(
                "agent.yaml:1:27: leaderElection.enabled: must be true or false, got \"yes\"",
                "agent.yaml:1:47: leaderElection.leaseDuration: must be at least 2s",
                "agent.yaml:1:51: leaderElection.term: unknown field",
                "agent.yaml:2:27: validation.consecutive: must be a whole number from 1, got \"0\"");
    }

    @Test
    void sshCommitVerificationIsReadWithRewindsRefusedByDefault() {
        AgentConfigLoader.Result r = loader.parse("agent.yaml", """
                git:
                  url: https://git.example.com/c.git
                  verify: {mode: ssh, allowedSignersFile: /etc/nightshift/allowed_signers}
                """);

        assertThat(r.errors()).isEmpty();
        assertThat(r.config().orElseThrow().git().verify())
                .contains(CommitVerification.ssh(Path.of("/etc/nightshift/allowed_signers")));
        assertThat(r.config().orElseThrow().git().verify().orElseThrow().allowRewind()).isFalse();
    }

    @Test
    void gpgCommitVerificationIsReadWithFingerprintsAsGpgPrintsThemAndAllowRewind() {
        AgentConfigLoader.Result r = loader.parse("agent.yaml", """
                git:
                  url: https://git.example.com/c.git
                  verify:
                    mode: gpg
                    publicKeysFile: /etc/nightshift/keys.asc
                    fingerprints: ["0123 4567 89AB CDEF 0123  4567 89ab cdef 0123 4567"]
                    allowRewind: true
                """);

        assertThat(r.errors()).isEmpty();
        assertThat(r.config().orElseThrow().git().verify()).contains(CommitVerification.gpg(Path.of("/etc/nightshift/keys.asc"),
                List.of("0123456789ABCDEF0123456789ABCDEF01234567")).allowRewind(true));
    }

    @Test
    void withoutGitVerifyEveryCommitIsApplied() {
        assertThat(loader.parse("agent.yaml", "git: {url: https://git.example.com/c.git}\n").config().orElseThrow().git().verify())
                .isEmpty();
    }

    @Test
    void badCommitVerificationSettingsAreRefusedWithTheirPlace() {
        assertThat(loader.parse("agent.yaml", """
                git:
                  verify: {allowedSignersFile: /s}
                """).errors()).containsExactly(
                "agent.yaml:2:11: git.verify.mode: is required: ssh (with allowedSignersFile) or gpg (with publicKeysFile and"
                        + " fingerprints)");
        assertThat(loader.parse("agent.yaml", """
                git:
                  verify: {mode: x509}
                """).errors()).containsExactly("agent.yaml:2:18: git.verify.mode: must be ssh or gpg, got \"x509\"");
        assertThat(loader.parse("agent.yaml", """
                git:
                  verify: {mode: ssh, fingerprints: [AB], allowRewind: maybe, keyring: /k}
                """).errors()).containsExactlyInAnyOrder(
                "agent.yaml:2:56: git.verify.allowRewind: must be true or false, got \"maybe\"",
                "agent.yaml:2:18: git.verify.allowedSignersFile: is required with mode ssh: the allowed signers file, in the"
                        + " format of git's gpg.ssh.allowedSignersFile",
                "agent.yaml:2:37: git.verify.fingerprints: is only for mode gpg",
                "agent.yaml:2:63: git.verify.keyring: unknown field");
        assertThat(loader.parse("agent.yaml", """
                git:
                  verify:
                    mode: gpg
                    fingerprints: [0123456789]
                """).errors()).containsExactlyInAnyOrder(
                "agent.yaml:3:11: git.verify.publicKeysFile: is required with mode gpg: the allowed OpenPGP public keys"
                        + " (gpg --armor --export KEY)",
                "agent.yaml:4:19: git.verify.fingerprints: must be OpenPGP fingerprints (40 or 64 hex digits, as gpg"
                        + " --fingerprint prints them), got \"0123456789\"");
    }

    // ---- the spec's strict reader ---------------------------------------------------------------

    @Test
    void aDuplicateKeyIsRefusedAtTheSecondKeyNamingTheLineOfTheFirst() {
        AgentConfigLoader.Result r = loader.parse("agent.yaml", """
                cluster: prod-eu1
                git:
                  url: https://git.example.com/c.git
                  ref: main
                  ref: release
                cluster: prod-us1
                """);

        assertThat(r.config()).isEmpty();
        assertThat(r.errors()).containsExactly(
                "agent.yaml:5:3: git.ref: duplicate key (first set at line 4)",
                "agent.yaml:6:1: cluster: duplicate key (first set at line 1)");
    }

    @Test
    void anUnknownKeyDeepInsideASectionIsRefusedAtItsLineAndColumnWithItsPath() {
        AgentConfigLoader.Result r = loader.parse("agent.yaml", """
                provider:
                  type: cluster-api
                  clusterApi:
                    infrastructure:
                      GCPMachineTemplate:
                        machineType: /spec/template/spec/instanceType
                        imageRequierd: true
                """);

        assertThat(r.errors()).containsExactly(
                "agent.yaml:7:9: provider.clusterApi.infrastructure.GCPMachineTemplate.imageRequierd: unknown field");
    }

    @Test
    void yaml11BooleansAndNumbersWhereAStringIsExpectedAreReadAsWrittenAsTheSpecReadsThem() {
        AgentConfigLoader.Result r = loader.parse("agent.yaml", """
                git:
                  url: https://git.example.com/c.git
                  ref: no
                  path: 010
                cluster: yes
                leaderElection: {leaseName: on}
                provider:
                  type: cluster-api
                  clusterApi: {kubeconfigFile: 1.30}
                nodeUpdates:
                  type: job
                  job: {image: "updater:1.30", command: [1.30, off]}
                """);

        assertThat(r.errors()).isEmpty();
        AgentConfig c = r.config().orElseThrow();
        assertThat(c.git().ref()).as("the branch no, not false").isEqualTo("no");
        assertThat(c.git().path()).as("the directory 010, not the octal 8").isEqualTo("010");
        assertThat(c.cluster()).contains("yes");
        assertThat(c.leaderElection().leaseName()).isEqualTo("on");
        assertThat(c.provider().orElseThrow().clusterApi().kubeconfigFile()).contains(Path.of("1.30"));
        assertThat(c.nodeUpdates().job().orElseThrow().command()).as("1.30 keeps its 0").containsExactly("1.30", "off");
    }

    @Test
    void yaml11BooleansWhereTrueOrFalseIsExpectedAreRefusedAsTheSpecRefusesThem() {
        AgentConfigLoader.Result r = loader.parse("agent.yaml", """
                dryRun: on
                leaderElection: {enabled: Yes}
                """);

        assertThat(r.errors()).containsExactly(
                "agent.yaml:1:9: dryRun: must be true or false, got \"on\"",
                "agent.yaml:2:27: leaderElection.enabled: must be true or false, got \"Yes\"");
    }

    @Test
    void anOctalLookingNumberIsRefusedRatherThanReadAsDecimalOrOctal() {
        AgentConfigLoader.Result r = loader.parse("agent.yaml", """
                http: {port: 09400}
                validation: {consecutive: 010}
                """);

        assertThat(r.errors()).containsExactly(
                "agent.yaml:1:14: http.port: must be a port from 0 to 65535, got \"09400\" (a leading 0 means octal in YAML 1.1:"
                        + " write the number without it)",
                "agent.yaml:2:27: validation.consecutive: must be a whole number from 1, got \"010\" (a leading 0 means octal"
                        + " in YAML 1.1: write the number without it)");
    }

    @Test
    void quotedNumbersAndBooleansAreStillReadByTheirTextAsTheyAlwaysWere() {
        AgentConfigLoader.Result r = loader.parse("agent.yaml", """
                http: {port: "9500"}
                dryRun: "true"
                validation: {consecutive: '2'}
                """);

        assertThat(r.errors()).isEmpty();
        assertThat(r.config().orElseThrow().http().port()).isEqualTo(9500);
        assertThat(r.config().orElseThrow().dryRun()).isTrue();
        assertThat(r.config().orElseThrow().validation().consecutive()).isEqualTo(2);
    }

    @Test
    void aValueOfTheWrongTypeIsRefusedNamingTheTypeExpectedAndTheValueFound() {
        AgentConfigLoader.Result r = loader.parse("agent.yaml", """
                git:
                  url: [https://git.example.com/c.git]
                  auth: nightshift
                http: {port: {number: 9400}}
                dryRun: [true]
                """);

        assertThat(r.errors()).containsExactly(
                "agent.yaml:2:8: git.url: must be a string, got a list",
                "agent.yaml:3:9: git.auth: must be a mapping, got \"nightshift\"",
                "agent.yaml:4:14: http.port: must be a port from 0 to 65535, got a mapping",
                "agent.yaml:5:9: dryRun: must be true or false, got a list");
    }

    @Test
    void aKeyWrittenWithNothingIsAsIfItWereNotWrittenAsInTheSpec() {
        AgentConfigLoader.Result r = loader.parse("agent.yaml", """
                git:
                  url: https://git.example.com/c.git
                  ref:
                cacheDir: ~
                provider:
                """);

        assertThat(r.errors()).isEmpty();
        AgentConfig c = r.config().orElseThrow();
        assertThat(c.git().ref()).isEqualTo(AgentConfig.DEFAULTS.git().ref());
        assertThat(c.cacheDir()).isEqualTo(AgentConfig.DEFAULTS.cacheDir());
        assertThat(c.provider()).isEmpty();
    }

    @Test
    void anEmptyGitVerifyIsRefusedRatherThanReadAsNoVerification() {
        assertThat(loader.parse("agent.yaml", "git:\n  url: https://git.example.com/c.git\n  verify:\n").errors())
                .containsExactly("agent.yaml:2:3: git.verify.mode: is required: ssh (with allowedSignersFile) or gpg (with"
                        + " publicKeysFile and fingerprints)");
    }

    @Test
    void anAliasBombIsRefusedNotExpanded() {
        StringBuilder laughs = new StringBuilder("cluster: prod\nanchors:\n  l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
        for (int level = 1; level <= 9; level++) {
            laughs.append("  l").append(level).append(": &l").append(level).append(" [");
            for (int i = 0; i < 9; i++) {
                laughs.append(i == 0 ? "" : ", ").append("*l").append(level - 1);
            }
            laughs.append("]\n");
        }

        AgentConfigLoader.Result r = loader.parse("agent.yaml", laughs.toString());

        assertThat(r.config()).isEmpty();
        assertThat(r.errors()).singleElement().asString()
                .startsWith("agent.yaml:1:1: invalid YAML:").contains("aliases").contains("max=" + YamlDocuments.MAX_ALIASES);
    }

    @Test
    void anAliasChainWithinTheAliasLimitIsRefusedWhereItExpandsBeyondTheLimitOfValues() {
        // 19 levels of 2 aliases each: 38 aliases, 2^20 values once expanded, from a file of under 1 KB.
        StringBuilder chain = new StringBuilder("cluster: prod\nanchors:\n  l0: &l0 [lol, lol]\n");
        for (int level = 1; level <= 19; level++) {
            chain.append("  l").append(level).append(": &l").append(level)
                    .append(" [*l").append(level - 1).append(", *l").append(level - 1).append("]\n");
        }

        AgentConfigLoader.Result r = loader.parse("agent.yaml", chain.toString());

        assertThat(r.config()).isEmpty();
        assertThat(r.errors()).singleElement().asString().matches("agent\\.yaml:\\d+:\\d+: anchors\\.l1[0-9].*: .*")
                .contains("the document expands to more than " + YamlDocuments.MAX_EXPANDED_VALUES + " values");
    }

    @Test
    void aTabIndentationIsRefusedAtItsLineAndColumn() {
        AgentConfigLoader.Result r = loader.parse("agent.yaml", "git:\n\turl: https://git.example.com/c.git\n");

        assertThat(r.errors()).singleElement().asString()
                .startsWith("agent.yaml:2:1: invalid YAML: while scanning for the next token: found character '\\t(TAB)'")
                .contains("Do not use \\t(TAB) for indentation");
    }

    @Test
    void aKeyIndentedLessThanItsSiblingsIsRefusedAtItsLineAndColumn() {
        AgentConfigLoader.Result r = loader.parse("agent.yaml", """
                git:
                  url: https://git.example.com/c.git
                 ref: main
                """);

        assertThat(r.errors()).singleElement().asString()
                .startsWith("agent.yaml:3:2: invalid YAML: while parsing a block mapping: expected <block end>");
    }

    @Test
    void aLocalTagIsRefusedEvenOnAValueThatWouldBeAString() {
        AgentConfigLoader.Result r = loader.parse("agent.yaml", "cluster: prod\ncacheDir: !local /tmp\n");

        assertThat(r.errors()).containsExactly(
                "agent.yaml:2:11: cacheDir: the YAML tag !local is not allowed: only plain mappings, lists and scalars are read");
    }

    @Test
    void aGlobalTagIsRefusedAtItsPlace() {
        AgentConfigLoader.Result r = loader.parse("agent.yaml", "cluster: !!python/object/apply:os.system [\"id\"]\n");

        assertThat(r.errors()).containsExactly(
                "agent.yaml:1:10: invalid YAML: Global tag is not allowed: tag:yaml.org,2002:python/object/apply:os.system");
    }

    @Test
    void aMergeKeyIsRefused() {
        AgentConfigLoader.Result r = loader.parse("agent.yaml", """
                webhook: &hook {secretEnv: HOOK}
                git: {<<: *hook, url: https://git.example.com/c.git}
                """);

        assertThat(r.errors()).containsExactly("agent.yaml:2:7: git: merge keys (<<) are not supported: write the fields out");
    }

    @Test
    void aSecondDocumentIsRefusedAtItsStart() {
        AgentConfigLoader.Result r = loader.parse("agent.yaml", "cluster: prod\n---\ncluster: staging\n");

        assertThat(r.errors()).singleElement().asString().startsWith("agent.yaml:3:1: a second YAML document");
        assertThat(loader.parse("agent.yaml", "---\ncluster: prod\n---\n").config().orElseThrow().cluster())
                .as("an empty document after the one is nothing").contains("prod");
    }

    @Test
    void aFileThatIsNotUtf8OrLargerThanTheSpecLimitIsRefusedAsASpecFileIs() throws IOException {
        Path latin1 = Files.write(tmp.resolve("latin1.yaml"), "cluster: caf\u00e9\n".getBytes(StandardCharsets.ISO_8859_1));
        Path big = Files.write(tmp.resolve("big.yaml"), "#".repeat(3 * 1024 * 1024 + 1).getBytes(StandardCharsets.UTF_8));

        assertThat(loader.load(latin1).errors()).containsExactly("latin1.yaml:1:1: is not valid UTF-8");
        assertThat(loader.load(big).errors()).containsExactly("big.yaml:1:1: file is larger than 3145728 bytes");
    }

    // ---- the configurations the repository ships ------------------------------------------------

    @Test
    void theConfigurationOfTheManifestsBaseIsReadAsItsCommentsSayWithNoProvider() {
        AgentConfigLoader.Result r = loader.load(repository().resolve("manifests/base/config.yaml"));

        assertThat(r.errors()).isEmpty();
        AgentConfig c = r.config().orElseThrow();
        assertThat(c.cluster()).contains("prod-eu1");
        assertThat(c.git().url()).contains(URI.create("https://git.example.com/platform/worker-pools.git"));
        assertThat(c.git().ref()).isEqualTo("main");
        assertThat(c.git().path()).isEqualTo("clusters/prod-eu1");
        assertThat(c.git().pollInterval()).isEqualTo(Duration.ofSeconds(60));
        assertThat(c.git().auth()).isEqualTo(new AgentConfig.Auth(Optional.of("nightshift"),
                Optional.of(Path.of("/etc/nightshift/secrets/token")), Optional.empty(), Optional.empty(), Optional.empty()));
        assertThat(c.webhook().secretFile()).contains(Path.of("/etc/nightshift/secrets/webhook-secret"));
        assertThat(c.http().port()).isEqualTo(9400);
        assertThat(c.cacheDir()).isEqualTo(Path.of("/var/cache/nightshift"));
        assertThat(c.leaderElection().enabled()).isTrue();
        assertThat(c.leaderElection().leaseDuration()).isEqualTo(Duration.ofSeconds(15));
        assertThat(c.dryRun()).isFalse();
        assertThat(c.provider()).as("the base chooses no provider: run refuses to start on it").isEmpty();
    }

    @Test
    void theConfigurationOfEachManifestsOverlayNamesItsProvider() {
        AgentConfig simulated = loader.load(repository().resolve("manifests/overlays/simulated/config.yaml")).config().orElseThrow();
        AgentConfig clusterApi = loader.load(repository().resolve("manifests/overlays/cluster-api/config.yaml")).config().orElseThrow();
        AgentConfig http = loader.load(repository().resolve("manifests/overlays/http/config.yaml")).config().orElseThrow();

        assertThat(simulated.provider()).contains(new AgentConfig.Provider("simulated"));
        assertThat(clusterApi.provider()).contains(new AgentConfig.Provider("cluster-api",
                new AgentConfig.Provider.ClusterApi("default", Optional.empty())));
        assertThat(clusterApi.nodeUpdates()).isEqualTo(AgentConfig.NodeUpdates.of("none"));
        assertThat(http.provider().orElseThrow().http().url()).contains(URI.create("https://machines.internal.example.com"));
        assertThat(http.provider().orElseThrow().http().tokenFile()).contains(Path.of("/etc/nightshift/machine-api/token"));
    }

    @Test
    void theConfigurationShownInTheRunCommandsDocsIsRead() throws IOException {
        String doc = Files.readString(repository().resolve("docs/commands/run.md"));
        int section = doc.indexOf("## Configuration");
        int start = doc.indexOf("```yaml\n", section) + "```yaml\n".length();
        String example = doc.substring(start, doc.indexOf("```", start));

        AgentConfigLoader.Result r = loader.parse("run.md", example);

        assertThat(r.errors()).isEmpty();
        AgentConfig c = r.config().orElseThrow();
        assertThat(c.git().path()).isEqualTo("clusters/prod");
        assertThat(c.git().timeout()).isEqualTo(Duration.ofSeconds(60));
        assertThat(c.webhook().secretFile()).contains(Path.of("/var/run/secrets/webhook/secret"));
        assertThat(c.leaderElection().leaseName()).isEqualTo("nightshift-leader");
        assertThat(c.validation()).isEqualTo(new AgentConfig.Validation(1, Duration.ofSeconds(10)));
        assertThat(c.nodeUpdates()).isEqualTo(AgentConfig.NodeUpdates.of("provider"));
    }

    @Test
    void theClusterApiExampleConfigurationIsRead() {
        AgentConfigLoader.Result r = loader.load(repository().resolve("examples/cluster-api/agent.yaml"));

        assertThat(r.errors()).isEmpty();
        assertThat(r.config().orElseThrow().provider()).contains(new AgentConfig.Provider("cluster-api",
                new AgentConfig.Provider.ClusterApi("default", Optional.empty())));
        assertThat(r.config().orElseThrow().nodeUpdates()).isEqualTo(AgentConfig.NodeUpdates.of("none"));
    }

    /** The repository's root: the tests run in the agent module's directory. */
    private static Path repository() {
        Path dir = Path.of("").toAbsolutePath();
        while (!Files.isRegularFile(dir.resolve("manifests/base/config.yaml"))) {
            dir = dir.getParent();
            assertThat(dir).as("the repository's root above the working directory").isNotNull();
        }
        return dir;
    }

    @Test
    void poolsRestrictTheAgentToNamedPoolsAndRolesAsKopsOrTheSpecSpellsThem() {
        AgentConfigLoader.Result r = loader.parse("agent.yaml", """
                pools:
                  include: [web, batch]
                  roles: [Node, apiserver]
                """);

        assertThat(r.errors()).isEmpty();
        assertThat(r.config().orElseThrow().pools()).isEqualTo(new dev.nightshift.agent.reconcile.ManagedPools(
                java.util.Set.of("web", "batch"), java.util.Set.of(dev.nightshift.spec.model.PoolRole.NODE,
                        dev.nightshift.spec.model.PoolRole.APISERVER)));
    }

    @Test
    void anUnknownRoleOrAnEmptyIncludeIsRefusedAtItsLine() {
        AgentConfigLoader.Result r = loader.parse("agent.yaml", """
                cluster: c
                pools:
                  include: []
                  roles: [worker]
                  exclude: [db]
                """);

        assertThat(r.config()).isEmpty();
        assertThat(r.errors()).anySatisfy(e -> assertThat(e).startsWith("agent.yaml:3:").contains("pools.include")
                        .contains("at least one pool"))
                .anySatisfy(e -> assertThat(e).startsWith("agent.yaml:4:").contains("\"worker\" is not a pool role"))
                .anySatisfy(e -> assertThat(e).startsWith("agent.yaml:5:").contains("exclude"));
    }
}
