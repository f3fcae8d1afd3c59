package dev.nightshift.agent.git;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import javax.net.ssl.SSLException;

import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.api.TransportCommand;
import org.eclipse.jgit.api.errors.GitAPIException;
import org.eclipse.jgit.errors.MissingObjectException;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;
import org.eclipse.jgit.transport.RefSpec;
import org.eclipse.jgit.transport.SshTransport;
import org.eclipse.jgit.transport.TransportHttp;
import org.eclipse.jgit.transport.UsernamePasswordCredentialsProvider;
import org.eclipse.jgit.transport.sshd.SshdSessionFactory;
import org.eclipse.jgit.transport.sshd.SshdSessionFactoryBuilder;
import org.eclipse.jgit.treewalk.TreeWalk;

import dev.nightshift.spec.load.SpecLoader;

/**
 * The remote spec repository, seen through a local bare copy: a cheap look at where the ref points
 * ({@code ls-remote}), a fetch only of commits not held yet, and the spec files read straight from
 * a commit's tree. Nothing is ever checked out, so there is no working tree to corrupt.
 */
public final class GitSource implements AutoCloseable {

    private static final String LOCAL_REF = "refs/nightshift/fetched";

    private final GitSourceConfig config;
    private final Repository local;
    private final Optional<SshdSessionFactory> ssh;
    private final VerifyingHttpConnectionFactory http;
    /** With {@code git.verify}: each commit's own signature is judged before its specs are read. */
    private final Optional<SignatureCheck> signatures;
    private String remoteRef;

    /** @throws IllegalArgumentException when the configured CA file is missing or not PEM; the message names it */
    public GitSource(GitSourceConfig config) throws IOException {
        this.config = config;
        // First, so that a bad CA file fails before anything is created on disk.
        this.http = new VerifyingHttpConnectionFactory(config.caFile().map(CaFile::trustManagers));
        // Also before: a missing allowed signers file or a fingerprint not among the keys fails at start.
        this.signatures = config.verify().map(SignatureCheck::of);
        Path repo = config.cacheDir().resolve("repo.git");
        Files.createDirectories(repo);
        this.local = new FileRepositoryBuilder().setGitDir(repo.toFile()).setBare().build();
        if (!Files.exists(repo.resolve("config"))) {
            local.create(true);
        }
        this.ssh = config.credentials() instanceof GitCredentials.SshKey key
                ? Optional.of(sshSessionFactory(key, config.cacheDir().resolve("ssh"))) : Optional.empty();
    }

    /**
     * JGit's SSH client with our own home and ssh directory, so that nothing of the user running the
     * agent leaks in, and {@code StrictHostKeyChecking yes}: a host key missing from known_hosts, or
     * changed, fails the connection.
     */
    private static SshdSessionFactory sshSessionFactory(GitCredentials.SshKey key, Path sshDir) throws IOException {
        Files.createDirectories(sshDir);
        Path sshConfig = sshDir.resolve("config");
        Files.writeString(sshConfig, "Host *\n  StrictHostKeyChecking yes\n  PreferredAuthentications publickey\n",
                StandardCharsets.UTF_8);
        File home = sshDir.getParent().toFile();
        return new SshdSessionFactoryBuilder()
                .setHomeDirectory(home)
                .setSshDirectory(sshDir.toFile())
                .setConfigFile(dir -> sshConfig.toFile())
                .setDefaultIdentities(dir -> List.of(key.privateKey()))
                .setDefaultKnownHostsFiles(dir -> List.of(key.knownHosts()))
                .build(null);
    }

    private <C extends TransportCommand<C, ?>> C authenticated(C command) {
        // Connecting and every read: a server that stops answering fails the poll instead of holding it.
        command.setTimeout((int) config.timeout().toSeconds());
        if (config.credentials() instanceof GitCredentials.HttpsToken token) {
            command.setCredentialsProvider(new UsernamePasswordCredentialsProvider(token.user(), token.token().reveal()));
        }
        command.setTransportConfigCallback(transport -> {
            if (transport instanceof TransportHttp httpTransport) {
                httpTransport.setHttpConnectionFactory(http);
            }
            if (transport instanceof SshTransport sshTransport) {
                ssh.ifPresent(sshTransport::setSshSessionFactory);
            }
        });
        return command;
    }

    /** Where the configured ref points now, asked of the remote without fetching anything. */
    public String remoteHead() throws GitSourceException {
        if (config.pinnedCommit()) {
            return config.ref();
        }
        Map<String, Ref> refs;
        try {
            refs = authenticated(Git.lsRemoteRepository().setRemote(config.url().toString()).setHeads(true).setTags(true))
                    .callAsMap();
        } catch (GitAPIException | RuntimeException e) {
            throw new GitSourceException("cannot list " + config.describe() + ": " + reason(e), e);
        }
        for (String candidate : List.of(config.ref(), Constants.R_HEADS + config.ref(), Constants.R_TAGS + config.ref())) {
            Ref ref = refs.get(candidate);
            if (ref != null) {
                remoteRef = ref.getName();
                ObjectId id = ref.getPeeledObjectId() != null ? ref.getPeeledObjectId() : ref.getObjectId();
                return id.name();
            }
        }
        throw new GitSourceException("no branch or tag \"" + config.ref() + "\" in " + GitSourceConfig.redacted(config.url()), null);
    }

    /** The spec files of {@code commit}, fetching it first unless the local copy has it already. */
    public SpecSnapshot snapshot(String commit) throws GitSourceException {
        ObjectId id = ObjectId.fromString(commit);
        if (!has(id)) {
            fetch(id);
        }
        try {
            return new SpecSnapshot(commit, read(id));
        } catch (IOException e) {
            throw new GitSourceException("cannot read commit " + commit + " of " + config.describe() + ": " + reason(e), e);
        }
    }

    /**
     * What {@code git.verify} says of {@code commit} (fetched first unless the local copy has it),
     * before anything of it is read; empty without {@code git.verify}. The commit's own signature is
     * judged (with a tag as ref, the commit the tag points to: the tag's signature is not enough),
     * then whether it descends from {@code inForce}.
     *
     * @param inForce the commit whose specs are in force, if any is known
     */
    public Optional<CommitCheck> verify(String commit, Optional<String> inForce) throws GitSourceException {
        if (signatures.isEmpty()) {
            return Optional.empty();
        }
        CommitVerification verification = config.verify().orElseThrow();
        ObjectId id = ObjectId.fromString(commit);
        if (!has(id)) {
            fetch(id);
        }
        try (RevWalk walk = new RevWalk(local)) {
            RevCommit head = walk.parseCommit(id);
            SignatureVerdict verdict = signatures.get().check(local, head);
            if (!verdict.trusted()) {
                return Optional.of(new CommitCheck(commit, verification.mode(), false, verdict.detail(), Optional.empty()));
            }
            Optional<String> rewound = Optional.empty();
            if (inForce.isPresent() && !inForce.get().equals(commit) && !descends(walk, head, inForce.get())) {
                rewound = inForce;
            }
            if (rewound.isPresent() && !verification.allowRewind()) {
                return Optional.of(new CommitCheck(commit, verification.mode(), false, "it does not descend from commit "
                        + rewound.get() + ", which is in force (a rewind: an older spec may be replayed); signed by "
                        + verdict.detail() + ". Push a commit on top of the one in force, or set git.verify.allowRewind: true",
                        rewound));
            }
            return Optional.of(new CommitCheck(commit, verification.mode(), true, verdict.detail(), rewound));
        } catch (IOException e) {
            throw new GitSourceException("cannot read commit " + commit + " of " + config.describe() + ": " + reason(e), e);
        }
    }

    /**
     * Whether {@code ancestor} is {@code head} or one of its ancestors. The branch is fetched in full
     * with {@code git.verify}, so an ancestor not held locally is not an ancestor.
     */
    private static boolean descends(RevWalk walk, RevCommit head, String ancestor) throws IOException {
        RevCommit base;
        try {
            base = walk.parseCommit(ObjectId.fromString(ancestor));
        } catch (MissingObjectException e) {
            return false;
        }
        return walk.isMergedInto(base, head);
    }

    private boolean has(ObjectId id) {
        try (RevWalk walk = new RevWalk(local)) {
            walk.parseCommit(id);
            return true;
        } catch (MissingObjectException e) {
            return false;
        } catch (IOException e) {
            return false;
        }
    }

    private void fetch(ObjectId id) throws GitSourceException {
        try (Git git = Git.wrap(local)) {
            if (config.pinnedCommit() || remoteRef == null) {
                // A commit cannot be asked for by name from every server: take every branch and tag.
                authenticated(git.fetch().setRemote(config.url().toString()).setRefSpecs(
                        new RefSpec("+refs/heads/*:refs/nightshift/heads/*"), new RefSpec("+refs/tags/*:refs/nightshift/tags/*")))
                        .call();
            } else if (signatures.isPresent()) {
                // The whole history: whether a head descends from the commit in force (git.verify) is read from it.
                // A cache fetched shallow before git.verify was set is deepened first.
                authenticated(git.fetch().setRemote(config.url().toString())
                        .setRefSpecs(new RefSpec("+" + remoteRef + ":" + LOCAL_REF))
                        .setUnshallow(!local.getObjectDatabase().getShallowCommits().isEmpty())).call();
            } else {
                // Forced, so that a force-push or a rewind of the branch is followed.
                authenticated(git.fetch().setRemote(config.url().toString())
                        .setRefSpecs(new RefSpec("+" + remoteRef + ":" + LOCAL_REF)).setDepth(1)).call();
            }
        } catch (GitAPIException | IOException | RuntimeException e) {
            throw new GitSourceException("cannot fetch " + config.describe() + ": " + reason(e), e);
        }
        if (!has(id)) {
            throw new GitSourceException("commit " + id.name() + " is not in " + config.describe(), null);
        }
    }

    private Map<String, byte[]> read(ObjectId commitId) throws IOException, GitSourceException {
        Map<String, byte[]> files = new TreeMap<>();
        try (RevWalk walk = new RevWalk(local); ObjectReader reader = local.newObjectReader()) {
            RevCommit commit = walk.parseCommit(commitId);
            ObjectId tree = commit.getTree();
            if (!config.path().isEmpty()) {
                try (TreeWalk dir = TreeWalk.forPath(local, config.path(), tree)) {
                    if (dir == null || !dir.isSubtree()) {
                        throw new GitSourceException("no directory \"" + config.path() + "\" in commit " + commitId.name(), null);
                    }
                    tree = dir.getObjectId(0);
                }
            }
            try (TreeWalk files0 = new TreeWalk(reader)) {
                files0.addTree(tree);
                files0.setRecursive(true);
                while (files0.next()) {
                    String name = files0.getPathString();
                    if (name.endsWith(".yaml") || name.endsWith(".yml")) {
                        files.put(name, reader.open(files0.getObjectId(0)).getCachedBytes((int) SpecLoader.MAX_FILE_BYTES + 1));
                    }
                }
            }
        }
        return files;
    }

    /** An exception's message, one line, for logs and status: JGit names the URL, never the token. */
    private String reason(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        if (root != e && root.getMessage() != null && !message.contains(root.getMessage())) {
            message = message + " (" + root.getMessage() + ")";
        }
        return (message + tlsHint(e)).replaceAll("\\s+", " ").trim();
    }

    /**
     * What went wrong when the server's certificate was refused, and what to do: JGit's own message
     * only says "SSL problems", the JDK's names no file or option.
     */
    private String tlsHint(Throwable e) {
        boolean handshake = false;
        boolean untrusted = false;
        boolean refused = false;
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            handshake |= t instanceof SSLException;
            untrusted |= t instanceof CertPathBuilderException || t instanceof CertPathValidatorException;
            refused |= t instanceof CertificateException;
        }
        if (!handshake || !(untrusted || refused)) {
            return "";
        }
        if (!untrusted) {
            // Trusted, but refused all the same: most often a host name the certificate is not for.
            return "; the server's certificate was refused";
        }
        return config.caFile()
                .map(file -> "; the server's certificate is not trusted by the CA certificates in " + file)
                .orElse("; the server's certificate is not trusted by the JDK's CAs: if a private CA signed it, "
                        + "give that CA's certificate in PEM with git.caFile (--git-ca-file)");
    }

    /** The repository, ref and path, without user info: how the log names the source. */
    @Override
    public String toString() {
        return config.describe();
    }

    @Override
    public void close() {
        local.close();
        ssh.ifPresent(SshdSessionFactory::close);
    }
}
