package dev.nightshift.sandbox.embedded;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;

/** Objects and raw HTTP for the embedded cluster's tests. */
final class Fixtures {

    static final String NS = "shop";

    private Fixtures() {
    }

    static Node node(String name, Map<String, String> labels) {
        return new NodeBuilder().withNewMetadata().withName(name).withLabels(labels).endMetadata()
                .withNewSpec().withProviderID("demo://" + name).endSpec().build();
    }

    /** A Running pod with Ready True: healthy for a budget. */
    static Pod readyPod(String name, Map<String, String> labels) {
        return pod(name, labels, "Running", "True");
    }

    static Pod pod(String name, Map<String, String> labels, String phase, String ready) {
        return new PodBuilder()
                .withNewMetadata().withName(name).withNamespace(NS).withLabels(labels).endMetadata()
                .withNewSpec().withNodeName("node-a").addNewContainer().withName("app").withImage("app:1").endContainer().endSpec()
                .withNewStatus().withPhase(phase).addNewCondition().withType("Ready").withStatus(ready).endCondition().endStatus()
                .build();
    }

    static PodDisruptionBudget minAvailable(String name, Object value, Map<String, String> selector) {
        return new PodDisruptionBudgetBuilder().withNewMetadata().withName(name).withNamespace(NS).endMetadata()
                .withNewSpec().withMinAvailable(new IntOrString(value)).withNewSelector().withMatchLabels(selector).endSelector()
                .endSpec().build();
    }

    static PodDisruptionBudget maxUnavailable(String name, Object value, Map<String, String> selector) {
        return new PodDisruptionBudgetBuilder().withNewMetadata().withName(name).withNamespace(NS).endMetadata()
                .withNewSpec().withMaxUnavailable(new IntOrString(value)).withNewSelector().withMatchLabels(selector).endSelector()
                .endSpec().build();
    }

    /** A client that gives up on the first 429, as the agent's drain loop uses (fabric8 retries 429s ten times by default). */
    static KubernetesClient noRetryClient(EmbeddedKubernetes cluster) {
        return new KubernetesClientBuilder()
                .withConfig(new ConfigBuilder(cluster.config()).withRequestRetryBackoffLimit(0).build()).build();
    }

    static HttpResponse<String> post(EmbeddedKubernetes cluster, String path, String json) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create(cluster.url() + path))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)).build();
        return send(request);
    }

    static HttpResponse<String> get(EmbeddedKubernetes cluster, String path) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(URI.create(cluster.url() + path)).GET().build());
    }

    private static HttpResponse<String> send(HttpRequest request) throws IOException, InterruptedException {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    static String evictionBody(String pod) {
        return """
                {"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"%s","namespace":"%s"}}""".formatted(pod, NS);
    }

    static String evictionPath(String pod) {
        return "/api/v1/namespaces/" + NS + "/pods/" + pod + "/eviction";
    }
}
