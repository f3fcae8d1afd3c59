package dev.nightshift.agent.fence;

/** A write not sent because the {@link Fence} did not hold: never retried, the reconcile stops. */
public final class FencedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public FencedException(String message) {
        super(message);
    }
}
