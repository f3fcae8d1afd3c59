package dev.nightshift.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Optional;

import dev.nightshift.agent.config.AgentConfig;
import dev.nightshift.agent.config.AgentConfigLoader;

/** {@code --provider}, {@code --machine-api-url} and {@code --machine-api-token-file} over a configuration: {@code run}'s and {@code rolling-update}'s. */
final class ProviderFlags {

    private ProviderFlags() {
    }

    /** The configuration with the flags given; empty after saying on {@code err} what is wrong (no provider, an unknown one). */
    static Optional<AgentConfig> apply(AgentConfig given, String provider, String machineApiUrl, Path machineApiTokenFile, PrintWriter err) {
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
