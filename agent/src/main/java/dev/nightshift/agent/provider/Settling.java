package dev.nightshift.agent.provider;

/**
 * A provider with records of its own to bring up to date before a plan (e.g. pairing surge machines with their old
 * partners, deleting templates nothing uses). Asked only by the replica that acts, never in a dry run.
 */
public interface Settling {

    void settle(String pool);
}
