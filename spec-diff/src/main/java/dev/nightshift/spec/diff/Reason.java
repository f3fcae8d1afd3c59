package dev.nightshift.spec.diff;

/**
 * One changed field and what it does, or one reason a change is rejected.
 *
 * @param path    the field, e.g. {@code spec.machine.image.version}
 * @param oldValue as it was; empty when the field was not set
 * @param newValue as it is now; empty when the field was removed
 * @param message  for a rejection, why; otherwise empty
 */
public record Reason(Effect effect, String path, String oldValue, String newValue, String message) {

    public static Reason change(Effect effect, String path, String oldValue, String newValue) {
        return new Reason(effect, path, oldValue, newValue, "");
    }

    public static Reason rejected(String path, String oldValue, String newValue, String message) {
        return new Reason(Effect.REJECTED, path, oldValue, newValue, message);
    }

    @Override
    public String toString() {
        String change = path + ": " + (oldValue.isEmpty() ? "(unset)" : oldValue) + " -> " + (newValue.isEmpty() ? "(unset)" : newValue);
        return message.isEmpty() ? change : change + " (" + message + ")";
    }
}
