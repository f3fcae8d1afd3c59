package dev.nightshift.strategies.model;

/** A pod whose eviction a PodDisruptionBudget refused, and how often. */
public record BlockedEviction(String pod, String disruptionBudget, int attempts) {
}
