package dev.nightshift.agent.provider;

/** A provider whose machines change on their own (watched objects, a cloud polled while machines are in flight) and says so. */
public interface ChangeNotifications extends AutoCloseable {

    /** Starts watching; {@code onChange} asks for a reconcile. */
    void start(Runnable onChange) throws Exception;

    /** Stops watching. */
    @Override
    void close();
}
