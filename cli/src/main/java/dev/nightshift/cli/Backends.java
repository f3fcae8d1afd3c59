package dev.nightshift.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;

import dev.nightshift.agent.command.PluggedProvider;
import dev.nightshift.agent.command.Plugin;
import dev.nightshift.agent.config.AgentConfig;
import dev.nightshift.agent.fence.Fence;
import dev.nightshift.agent.fence.FenceInterceptor;
import dev.nightshift.agent.git.CaFile;
import dev.nightshift.agent.provider.MachineProvider;
import dev.nightshift.agent.provider.NoNodeUpdates;
import dev.nightshift.agent.provider.NodeUpdater;
import dev.nightshift.agent.provider.capi.ClusterApiMachineProvider;
import dev.nightshift.agent.provider.capi.ClusterApiSettings;
import dev.nightshift.agent.provider.http.HttpMachineApiClient;
import dev.nightshift.agent.provider.http.HttpMachineProvider;
import dev.nightshift.agent.provider.http.MachineApi;
import dev.nightshift.agent.provider.http.MachineApiEndpoint;
import dev.nightshift.agent.provider.http.MachineApiNodeUpdater;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;

/** The machine provider a configuration names, built for {@code run} and {@code rolling-update} alike. */
final class Backends {

    private final List<Plugin> plugins;
    private final PrintWriter err;

    Backends(List<Plugin> plugins, PrintWriter err) {
        this.plugins = List.copyOf(plugins);
        this.err = err;
    }

    /** What creates and deletes machines, and what updates nodes when node updates are the provider's own. */
    record Backend(MachineProvider machines, NodeUpdater nodes, Optional<KubernetesClient> ownClient) implements AutoCloseable {

        Backend(MachineProvider machines, NodeUpdater nodes) {
            this(machines, nodes, Optional.empty());
        }

        @Override
        public void close() {
            ownClient.ifPresent(KubernetesClient::close);
        }
    }

    /**
     * The backend of the configured provider, or empty after saying on stderr why there is none.
     * Every provider type is a case of its own: a new type that is not handled here answers "not wired".
     */
    Optional<Backend> create(AgentConfig config, KubernetesClient client, ScheduledExecutorService cloud, Fence fence) {
        AgentConfig.Provider provider = config.provider().orElseThrow();
        Optional<PluggedProvider> plugged = plugins.stream().flatMap(p -> p.providers().stream())
                .filter(p -> p.type().equals(provider.type())).findFirst();
        if (plugged.isPresent()) {
            plugged.get().warning().ifPresent(err::println);
            err.flush();
            PluggedProvider.Backend made = plugged.get().factory().create(client, cloud, Clock.systemUTC());
            return Optional.of(new Backend(made.machines(), made.nodes()));
        }
        switch (provider.type()) {
            case AgentConfig.Provider.CLUSTER_API -> {
                AgentConfig.Provider.ClusterApi settings = provider.clusterApi();
                KubernetesClient management = client;
                if (settings.kubeconfigFile().isPresent()) {
                    Path file = settings.kubeconfigFile().get();
                    try {
                        management = new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(Files.readString(file)))
                                .withHttpClientBuilderConsumer(b -> b.addOrReplaceInterceptor("nightshift-fence", new FenceInterceptor(fence)))
                                .build();
                    } catch (IOException | RuntimeException e) {
                        // The file is a secret: its name and what went wrong, never its content.
                        err.println("provider.clusterApi.kubeconfigFile " + file + " cannot be read as a kubeconfig: "
                                + e.getClass().getSimpleName());
                        return Optional.empty();
                    }
                }
                ClusterApiMachineProvider machines = new ClusterApiMachineProvider(management, new ClusterApiSettings(
                        settings.namespace(), config.cluster().orElseThrow(), settings.infrastructure()), Clock.systemUTC());
                return Optional.of(new Backend(machines, new NoNodeUpdates(), management == client ? Optional.empty() : Optional.of(management)));
            }
            case AgentConfig.Provider.HTTP -> {
                AgentConfig.Provider.Http settings = provider.http();
                if (settings.url().isEmpty() || settings.tokenFile().isEmpty()) {
                    err.println("provider http needs the machine API's URL (--machine-api-url or provider.http.url)"
                            + " and its token file (--machine-api-token-file or provider.http.tokenFile)");
                    return Optional.empty();
                }
                Path token = settings.tokenFile().get();
                if (!Files.isReadable(token)) {
                    err.println("the machine API's token file " + token + " cannot be read");
                    return Optional.empty();
                }
                try {
                    settings.caFile().ifPresent(CaFile::certificates);
                } catch (IllegalArgumentException e) {
                    err.println("provider.http.caFile: " + e.getMessage());
                    return Optional.empty();
                }
                MachineApi api = HttpMachineApiClient.of(new MachineApiEndpoint(settings.url().get(), token, settings.caFile(),
                        settings.timeout()), fence);
                HttpMachineProvider machines = new HttpMachineProvider(api);
                return Optional.of(new Backend(machines, new MachineApiNodeUpdater(api, machines, client)));
            }
            case AgentConfig.Provider.SIMULATED -> {
                // The simulated cloud is the sandbox's: a build without it (the image) has no such provider.
                err.println("provider simulated comes with the sandbox, which this build of nightshift"
                        + " does not have (nightshift.jar has it; the image does not)");
                return Optional.empty();
            }
            default -> {
                err.println("provider \"" + provider.type() + "\" is not wired into run");
                return Optional.empty();
            }
        }
    }
}
