package dev.nightshift.sandbox;

import java.io.IOException;
import java.util.List;
import java.util.stream.Collectors;

/** What the crash tests print when a draw fails: the tails of what the world and each process saw. */
final class CrashOutputs {

    private CrashOutputs() {
    }

    /** The node events watched, each agent's output (the last one's longer) and the sandbox's, each a tail. */
    static void appendTails(StringBuilder r, ClusterWatch nodes, List<AgentProcess> agents, SandboxProcess sandbox) {
        if (nodes != null) {
            List<NodeEvent> events = nodes.events();
            r.append("--- node events watched (tail)\n").append(events.subList(Math.max(0, events.size() - 30), events.size()).stream()
                    .map(NodeEvent::line).collect(Collectors.joining("\n")));
        }
        try {
            for (int i = 0; i < agents.size(); i++) {
                r.append("\n--- agent ").append(i + 1).append("'s output (tail)\n").append(agents.get(i).tail(i == agents.size() - 1 ? 30 : 10));
            }
            if (sandbox != null) {
                List<String> lines = sandbox.output().lines().toList();
                r.append("\n--- the sandbox's output (tail)\n").append(String.join("\n", lines.subList(Math.max(0, lines.size() - 20),
                        lines.size())));
            }
        } catch (IOException e) {
            r.append("\n(cannot read an output: ").append(e.getMessage()).append(')');
        }
    }
}
