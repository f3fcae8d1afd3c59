package dev.nightshift.strategies;

import dev.nightshift.strategies.model.ObservedNode;

/**
 * Whether new disruptive work may begin on a node now: the window, pause, the pool's turn,
 * validation and interval combined. Work already in flight never asks.
 */
@FunctionalInterface
interface StartGate {

    boolean allows(ObservedNode node);
}
