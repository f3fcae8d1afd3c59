package dev.nightshift.agent.reconcile;

/**
 * A step of the plan a guard refused: it was not executed. Logged, counted ({@code nightshift_steps_refused_total}) and
 * shown in {@code /status}.
 *
 * @param step   the step's kind, e.g. {@code Drain}
 * @param node   the node or machine it was for
 * @param reason the label: {@code unavailable}, {@code surge} (the pool's promises) or {@code api_server_not_ready}
 * @param detail the numbers that refused it, in a sentence
 */
public record StepRefusal(String pool, String step, String node, String reason, String detail) {
}
