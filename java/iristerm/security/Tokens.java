package iristerm.security;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Bearer tokens of the standalone HTTP server, each mapped to the identity that owns the
 * sessions it opens. Only SHA-256 digests of the tokens are kept, and a presented token is
 * compared against every entry in constant time, so neither the heap nor response timing
 * reveals a valid token.
 */
public final class Tokens {

    private static final Logger log = LoggerFactory.getLogger(Tokens.class);

    /** Identity of a single token given on the command line or generated at start. */
    public static final String DEFAULT_IDENTITY = "default";

    /** Name of the generated token's file inside the data directory. */
    public static final String TOKEN_FILE_NAME = "http-token";

    /** Shorter tokens are guessable; generated ones are 43 characters. */
    private static final int MIN_TOKEN_LENGTH = 16;

    private static final int GENERATED_TOKEN_BYTES = 32;
    private static final Pattern IDENTITY = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._@-]{0,63}");
    // Visible ASCII only: the token travels in an HTTP header and is split on whitespace in files.
    private static final Pattern TOKEN = Pattern.compile("[\\x21-\\x7E]+");
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");

    private record Entry(String identity, byte[] digest) {
    }

    /** A token kept in the data directory; {@code created} tells whether this start generated it. */
    public record StoredToken(String token, Path file, boolean created) {
    }

    private final List<Entry> entries;

    private Tokens(List<Entry> entries) {
        this.entries = List.copyOf(entries);
    }

    /** No token at all: nothing signs in with one (a stdio server's browser view signs in with links only). */
    public static Tokens none() {
        return new Tokens(List.of());
    }

    /** One token, owned by {@link #DEFAULT_IDENTITY}. */
    public static Tokens single(String token) {
        String problem = problemWith(token);
        if (problem != null) {
            throw new IllegalArgumentException("Bearer token " + problem);
        }
        return new Tokens(List.of(new Entry(DEFAULT_IDENTITY, digest(token))));
    }

    /**
     * Reads {@code identity token} lines; blank lines and lines starting with {@code #} are
     * ignored. A token may appear only once; an identity may own several tokens (rotation).
     */
    public static Tokens fromFile(Path file) throws IOException {
        List<Entry> entries = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String where = file + " line " + (i + 1);
            String[] fields = line.split("\\s+");
            if (fields.length != 2) {
                throw new IllegalArgumentException(where + ": expected 'identity token', found "
                        + fields.length + " fields");
            }
            String identity = fields[0];
            if (!IDENTITY.matcher(identity).matches()) {
                throw new IllegalArgumentException(where + ": identity '" + identity
                        + "' must be 1-64 characters of letters, digits, '.', '_', '@', '-'");
            }
            String token = fields[1];
            String problem = problemWith(token);
            if (problem != null) {
                throw new IllegalArgumentException(where + ": token " + problem);
            }
            if (!seen.add(token)) {
                throw new IllegalArgumentException(where + ": token already assigned on an earlier line");
            }
            entries.add(new Entry(identity, digest(token)));
        }
        if (entries.isEmpty()) {
            throw new IllegalArgumentException(file + " contains no 'identity token' lines");
        }
        return new Tokens(entries);
    }

    /**
     * Returns the token stored in {@code dataDir}, generating and storing one (owner-only
     * permissions where the file system is POSIX) if there is none yet.
     */
    public static StoredToken loadOrGenerate(Path dataDir) throws IOException {
        Files.createDirectories(dataDir);
        Path file = dataDir.resolve(TOKEN_FILE_NAME);
        boolean posix = Files.getFileStore(dataDir).supportsFileAttributeView("posix");
        if (!Files.exists(file)) {
            String token = generate();
            // Created owner-only from the first byte; CREATE_NEW makes two racing starts agree on one file.
            FileAttribute<?>[] attributes = posix
                    ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(OWNER_ONLY)}
                    : new FileAttribute<?>[0];
            try (SeekableByteChannel out = Files.newByteChannel(file,
                    Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE), attributes)) {
                out.write(ByteBuffer.wrap(token.getBytes(StandardCharsets.US_ASCII)));
                return new StoredToken(token, file, true);
            } catch (FileAlreadyExistsException raced) {
                // another start won the race: read its token below
            }
        }
        if (posix) {
            restrictToOwner(file);
        }
        String token = Files.readString(file, StandardCharsets.US_ASCII).strip();
        String problem = problemWith(token);
        if (problem != null) {
            throw new IllegalArgumentException(file + ": stored token " + problem
                    + "; delete the file to generate a new one");
        }
        return new StoredToken(token, file, false);
    }

    /** Every identity that holds a token, in file order (each once). */
    public List<String> identities() {
        return entries.stream().map(Entry::identity).distinct().toList();
    }

    /** The identity owning {@code presented}, if it is a valid token. */
    public Optional<String> identityOf(String presented) {
        if (presented == null) {
            return Optional.empty();
        }
        byte[] candidate = digest(presented);
        String match = null;
        // No early exit: every entry is compared so timing does not depend on which one matched.
        for (Entry entry : entries) {
            if (MessageDigest.isEqual(candidate, entry.digest()) && match == null) {
                match = entry.identity();
            }
        }
        return Optional.ofNullable(match);
    }

    private static String generate() {
        byte[] bytes = new byte[GENERATED_TOKEN_BYTES];
        new SecureRandom().nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /** Why {@code token} cannot be used, or null if it can. */
    private static String problemWith(String token) {
        if (token == null || token.isEmpty()) {
            return "is empty";
        }
        if (!TOKEN.matcher(token).matches()) {
            return "must be visible ASCII without spaces";
        }
        if (token.length() < MIN_TOKEN_LENGTH) {
            return "must be at least " + MIN_TOKEN_LENGTH + " characters (it has " + token.length() + ")";
        }
        return null;
    }

    private static void restrictToOwner(Path file) throws IOException {
        Set<PosixFilePermission> current = Files.getPosixFilePermissions(file);
        if (!current.equals(OWNER_ONLY)) {
            log.warn("{} had permissions {}; restricting it to its owner (rw-------)",
                    file, PosixFilePermissions.toString(current));
            Files.setPosixFilePermissions(file, OWNER_ONLY);
        }
    }

    private static byte[] digest(String token) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every Java platform", e);
        }
    }
}
