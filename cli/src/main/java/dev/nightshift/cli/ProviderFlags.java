package dev.nightshift.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Optional;

import dev.nightshift.agent.config.AgentConfig;
import dev.nightshift.agent.config.AgentConfigLoader;
import picocli.CommandLine.Option;

/**
 * The flags {@code run} and {@code rolling-update} share to name the agent's configuration, the cluster and the machine
 * provider: {@code --config}, {@code --cluster}, {@code --provider}, {@code --machine-api-url} and
 * {@code --machine-api-token-file}. One picocli mixin, so that both commands take them under the same names, with the
 * same help and the same checks. ({@code --kubeconfig} is {@link KubernetesOptions}'.)
 */
final class ProviderFlags {

    @Option(names = "--config", paramLabel = "FILE",
            description = "The agent's configuration file (YAML): provider, cluster, lease and more; the flags override it.")
    Path configFile;

    @Option(names = "--cluster", paramLabel = "NAME", description = "The Cluster of the spec to act on (or cluster in --config).")
    String cluster;

    @Option(names = "--provider", paramLabel = "NAME",
            description = "Machine provider (or provider.type; no default): simulated (machines become Node objects of the cluster itself; "
                    + "for the embedded cluster and test clusters), cluster-api (Cluster API MachineDeployments; provider.clusterApi) "
                    + "or http (a cloud adapter serving the machine API; provider.http).")
    String provider;

    @Option(names = "--machine-api-url", paramLabel = "URL",
            description = "The machine API's base URL for provider http (or provider.http.url), e.g. the one nightshift sandbox prints.")
    String machineApiUrl;

    @Option(names = "--machine-api-token-file", paramLabel = "FILE",
            description = "The file holding the machine API's bearer token (or provider.http.tokenFile); read on every request.")
    Path machineApiTokenFile;

    /** The configuration file's contents ({@link AgentConfig#DEFAULTS} without {@code --config}); empty after printing its errors. */
    Optional<AgentConfig> file(PrintWriter err) throws IOException {
        if (configFile == null) {
            return Optional.of(AgentConfig.DEFAULTS);
        }
        AgentConfigLoader.Result loaded = new AgentConfigLoader().load(configFile);
        if (loaded.config().isEmpty()) {
            loaded.errors().forEach(err::println);
        }
        return loaded.config();
    }

    /** {@code --cluster}, else the configuration's {@code cluster}; empty when neither names one. */
    Optional<String> cluster(AgentConfig config) {
        return Optional.ofNullable(cluster).or(config::cluster);
    }

    /** The configuration with the provider flags given; empty after saying on {@code err} what is wrong (no provider, an unknown one). */
    Optional<AgentConfig> apply(AgentConfig given, PrintWriter err) {
        AgentConfig config = given;
        if (provider != null) {
            // The flag names the type; the file's provider.clusterApi settings stay.
            config = config.with(config.provider().map(p -> p.withType(provider)).orElseGet(() -> new AgentConfig.Provider(provider)));
        }
        if (machineApiUrl != null || machineApiTokenFile != null) {
            if (config.provider().isEmpty() || !config.provider().get().type().equals(AgentConfig.Provider.HTTP)) {
                err.println("--machine-api-url and --machine-api-token-file are for provider http"
                        + " (--provider http or provider.type: http)");
                return Optional.empty();
            }
            AgentConfig.Provider.Http http = config.provider().get().http();
            if (machineApiUrl != null) {
                Optional<java.net.URI> url = AgentConfigLoader.machineApiUrl(machineApiUrl);
                if (url.isEmpty()) {
                    err.println("--machine-api-url must be an http:// or https:// URL with a host and no user info"
                            + (machineApiUrl.contains("@") ? "" : ", got \"" + machineApiUrl + "\""));
                    return Optional.empty();
                }
                http = http.withUrl(url.get());
            }
            if (machineApiTokenFile != null) {
                http = http.withTokenFile(machineApiTokenFile);
            }
            config = config.with(config.provider().get().with(http));
        }
        String types = String.join(", ", AgentConfig.Provider.TYPES);
        if (config.provider().isEmpty()) {
            err.println("no machine provider is named: set provider.type in the configuration or --provider; this release has: " + types);
            return Optional.empty();
        }
        if (!AgentConfig.Provider.TYPES.contains(config.provider().get().type())) {
            err.println("unknown provider \"" + config.provider().get().type() + "\"; this release has: " + types);
            return Optional.empty();
        }
        return Optional.of(config);
    }
}
