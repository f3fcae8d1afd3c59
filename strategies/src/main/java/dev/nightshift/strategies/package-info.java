/**
 * The rollout planner: from the desired spec and what is observed now, the next safe steps.
 * Pure; it never talks to a cluster.
 */
package dev.nightshift.strategies;
