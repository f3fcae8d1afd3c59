package dev.nightshift.cli;

import java.util.concurrent.Callable;

import dev.nightshift.agent.kube.PoolStatusRecords;
import dev.nightshift.agent.run.Agent;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code nightshift pause} and {@code nightshift resume}: stop a pool's rollout at a safe point
 * without a commit, as {@code kubectl rollout pause} does, by annotating the pool's status record.
 */
public final class PauseCommand {

    private PauseCommand() {
    }

    static int setPaused(KubernetesClient client, String pool, boolean paused) {
        return annotate(client, pool, java.util.Map.of(PoolStatusRecords.PAUSED, Boolean.toString(paused)));
    }

    /**
     * Resuming also lifts a halt ({@code HALTED}: failed health checks or {@code maxFailedMachines}): the time of the
     * resume goes in {@link PoolStatusRecords#RESUMED_AT}, and a halt recorded before it no longer holds the pool.
     */
    static int resume(KubernetesClient client, String pool, java.time.Instant now) {
        return annotate(client, pool, java.util.Map.of(PoolStatusRecords.PAUSED, "false", PoolStatusRecords.RESUMED_AT, now.toString()));
    }

    private static int annotate(KubernetesClient client, String pool, java.util.Map<String, String> annotations) {
        String name = PoolStatusRecords.name(pool);
        ConfigMap existing = client.configMaps().inNamespace(Agent.NAMESPACE).withName(name).get();
        if (existing == null) {
            client.configMaps().inNamespace(Agent.NAMESPACE).resource(new ConfigMapBuilder().withNewMetadata().withName(name)
                    .withNamespace(Agent.NAMESPACE).addToLabels(PoolStatusRecords.LABEL, pool)
                    .addToAnnotations(annotations).endMetadata().build()).create();
        } else {
            client.configMaps().inNamespace(Agent.NAMESPACE).withName(name).edit(cm -> {
                cm.getMetadata().setAnnotations(cm.getMetadata().getAnnotations() == null ? new java.util.HashMap<>()
                        : new java.util.HashMap<>(cm.getMetadata().getAnnotations()));
                cm.getMetadata().getAnnotations().putAll(annotations);
                return cm;
            });
        }
        return 0;
    }

    @Command(name = "pause", mixinStandardHelpOptions = true, description = "Pause a pool's rollout at a safe point (work in flight finishes).")
    public static final class Pause implements Callable<Integer> {
        @Spec
        private CommandSpec spec;
        @Mixin
        private KubernetesOptions kubernetes;
        @Mixin
        private PoolSelection pool;

        @Override
        public Integer call() throws Exception {
            String name = pool.pool();
            try (KubernetesClient client = kubernetes.client()) {
                setPaused(client, name, true);
                spec.commandLine().getOut().println("pool " + name + " paused");
                return 0;
            }
        }
    }

    @Command(name = "resume", mixinStandardHelpOptions = true, description = "Resume a paused or halted pool's rollout.")
    public static final class Resume implements Callable<Integer> {
        @Spec
        private CommandSpec spec;
        @Mixin
        private KubernetesOptions kubernetes;
        @Mixin
        private PoolSelection pool;

        @Override
        public Integer call() throws Exception {
            String name = pool.pool();
            try (KubernetesClient client = kubernetes.client()) {
                resume(client, name, java.time.Instant.now());
                spec.commandLine().getOut().println("pool " + name + " resumed");
                return 0;
            }
        }
    }
}
