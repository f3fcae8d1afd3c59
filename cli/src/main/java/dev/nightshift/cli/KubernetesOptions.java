package dev.nightshift.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import dev.nightshift.agent.fence.Fence;
import dev.nightshift.agent.fence.FenceInterceptor;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import picocli.CommandLine.Option;

/**
 * Which cluster to talk to: a kubeconfig file, else the usual discovery (in-cluster, ~/.kube/config). Requests carry
 * the User-Agent {@code nightshift/VERSION}, so that an API server's audit log (and the scale benchmark, from the
 * embedded API's request log) tells Nightshift's requests from other clients'.
 */
final class KubernetesOptions {

    /** The User-Agent of every request the commands send to the Kubernetes API. */
    static final String USER_AGENT = "nightshift/" + java.util.Objects.requireNonNullElse(
            KubernetesOptions.class.getPackage().getImplementationVersion(), "development");

    @Option(names = "--kubeconfig", paramLabel = "FILE", description = "Kubeconfig to use (default: in-cluster, then ~/.kube/config).")
    Path kubeconfig;

    KubernetesClient client() throws IOException {
        return client(Fence.open());
    }

    /** A client that sends no write while {@code fence} does not hold (the agent's, with leader election). */
    KubernetesClient client(Fence fence) throws IOException {
        Config config = kubeconfig == null ? Config.autoConfigure(null)
                : Config.fromKubeconfig(Files.readString(kubeconfig, StandardCharsets.UTF_8));
        return new KubernetesClientBuilder().withConfig(new ConfigBuilder(config).withUserAgent(USER_AGENT).build())
                .withHttpClientBuilderConsumer(b -> b.addOrReplaceInterceptor("nightshift-fence", new FenceInterceptor(fence))).build();
    }
}
