package dev.nightshift.spec.hash;

/**
 * One input of a hash.
 *
 * @param path      the field in the pool's effective view (cluster fields included), e.g. {@code spec.machine.type}
 * @param canonical the value in the form that is hashed: equal values give equal text whatever their spelling
 * @param display   the value as a person would write it, for reasons
 */
public record HashInput(String path, String canonical, String display) {
}
