package dev.nightshift.cli;

import java.io.PrintWriter;
import java.util.concurrent.Callable;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.nightshift.agent.kube.PoolStatusRecords;
import dev.nightshift.agent.report.RevisionHistory;
import dev.nightshift.agent.run.Agent;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.KubernetesClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code nightshift history}: a pool's last accepted revisions, as {@code kubectl rollout history} lists a Deployment's,
 * read from the pool's record: the commit of each target, its roll hash, when it was accepted and how it went.
 */
@Command(name = "history", mixinStandardHelpOptions = true,
        description = "A pool's last accepted revisions (revisionHistoryLimit, default 10): commit, roll hash, accepted, outcome.")
public final class HistoryCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;
    @Mixin
    private KubernetesOptions kubernetes;
    @Mixin
    private PoolSelection selection;
    @Option(names = "--output", paramLabel = "FORMAT", defaultValue = "text", description = "text or json (default ${DEFAULT-VALUE}).")
    private OutputFormat output;

    @Override
    public Integer call() throws Exception {
        String pool = selection.pool();
        try (KubernetesClient client = kubernetes.client()) {
            ConfigMap record = client.configMaps().inNamespace(Agent.NAMESPACE).withName(PoolStatusRecords.name(pool)).get();
            if (record == null) {
                spec.commandLine().getErr().println("no record of pool " + pool + " in " + Agent.NAMESPACE + ": the agent has not acted on it");
                return 1;
            }
            RevisionHistory history = RevisionHistory.read(record.getData() == null ? null : record.getData().get(PoolStatusRecords.HISTORY));
            print(spec.commandLine().getOut(), pool, history, output);
            return 0;
        }
    }

    static void print(PrintWriter out, String pool, RevisionHistory history, OutputFormat format) {
        if (format == OutputFormat.json) {
            ObjectNode o = new ObjectMapper().createObjectNode();
            o.put("pool", pool);
            o.set("revisions", history.array());
            out.println(o.toPrettyString());
            return;
        }
        out.println("pool " + pool);
        out.printf("%-9s %-12s %-20s %-11s %s%n", "REVISION", "ROLL-HASH", "ACCEPTED", "OUTCOME", "NOTE");
        for (RevisionHistory.Entry e : history.entries()) {
            out.printf("%-9s %-12s %-20s %-11s %s%n", e.revision().substring(0, Math.min(8, e.revision().length())),
                    shortHash(e.rollHash()), e.acceptedAt(), e.outcome(), e.note());
        }
        out.flush();
    }

    /** {@code 1:3f9a…} as {@code 1:3f9a2c1d}. */
    private static String shortHash(String hash) {
        return hash.length() <= 10 ? hash : hash.substring(0, 10);
    }
}
