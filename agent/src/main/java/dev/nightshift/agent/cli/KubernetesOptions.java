package dev.nightshift.agent.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import picocli.CommandLine.Option;

/** Which cluster to talk to: a kubeconfig file, else the usual discovery (in-cluster, ~/.kube/config). */
final class KubernetesOptions {

    @Option(names = "--kubeconfig", paramLabel = "FILE", description = "Kubeconfig to use (default: in-cluster, then ~/.kube/config).")
    Path kubeconfig;

    KubernetesClient client() throws IOException {
        if (kubeconfig == null) {
            return new KubernetesClientBuilder().build();
        }
        Config config = Config.fromKubeconfig(Files.readString(kubeconfig, StandardCharsets.UTF_8));
        return new KubernetesClientBuilder().withConfig(config).build();
    }
}
