package workspace

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// tree is what a workspace knows of its roots for its commands' sandboxes:
// the entries a sandbox names (denied, read-only, version control, files
// with other names), the directories the walk entered, and the identities
// (device and inode) of the denied files and directories, kept up to date
// from the kernel's notifications of what changed (see watch_linux.go).
//
// A denied file stays denied under any name: the walk hides an entry
// whose identity was denied before, so a rename of the file or of a
// directory above it (mv conf conf-old) takes the protection along. An
// identity is forgotten at a whole walk that finds no name for it.
type trackedTree struct {
	w       *Workspace
	watch   watcher // nil: every preparation walks the whole tree
	byWD    map[int][]*trackedDir
	dirs    map[dirKey]*trackedDir
	ids     map[fileID]bool // identities of denied entries
	marked  map[*trackedDir]bool
	bare    map[*trackedDir]bool // the bare repositories
	valid   bool                 // the state reflects the tree, but for the queued changes
	walked  int                  // entries visited by the current walk, against maxSandboxWalk
	recheck map[fileID]bool
	// recheckAll: a name went that the walk did not know, perhaps another
	// name of a file it does.
	recheckAll bool
	grew       bool // a file with other names appeared: groups may be incomplete
	found      map[fileID]bool
}

// watcher is a source of change notifications.
type watcher interface {
	watch(dir *os.File) (int, error)
	unwatch(wd int)
	drain() (changes []change, overflow bool, err error)
	close()
}

// change is one notification: an entry of a watched directory changed
// (name set), or the directory itself went (self), or the watch did.
type change struct {
	wd         int
	name       string
	self, gone bool
}

type dirKey struct {
	root int // index in Workspace.roots
	rel  string
}

// trackedDir is a directory of a root the walk entered.
type trackedDir struct {
	key     dirKey
	wd      int
	subdirs map[string]bool
	marks   map[string]mark
	bare    bool // a bare repository
}

// mark is an entry a sandbox names.
type mark struct {
	deny, readOnly, vcs, isDir bool
	id                         fileID
	links                      int // names it has, for a regular file with more than one
}

// Bounds of one sandbox walk: a tree larger than this, or with more
// protected files, is refused rather than walked for ever or masked in
// part.
const (
	maxSandboxWalk  = 2_000_000
	maxSandboxPaths = 4096
	// maxRaces is how often a preparation starts again when the tree
	// changed while it was read (a directory renamed between its
	// listing and its opening), before it gives up.
	maxRaces = 3
)

// vcsDirs are the version-control directories a command may see.
var vcsDirs = map[string]bool{".git": true, ".hg": true, ".svn": true}

// errRaced is a directory that changed between its listing and its
// opening: the preparation starts again from the changes.
var errRaced = errors.New("workspace: the tree changed while a sandbox was prepared")

func newTrackedTree(w *Workspace) *trackedTree {
	t := &trackedTree{w: w, ids: map[fileID]bool{}}
	t.reset()
	local := true
	for _, r := range w.roots {
		local = local && localFS(r.real)
	}
	if local && !w.noWatch {
		if wt, err := newWatcher(); err == nil {
			t.watch = wt
		}
	}
	return t
}

func (t *trackedTree) reset() {
	if t.watch != nil {
		for wd := range t.byWD {
			t.watch.unwatch(wd)
		}
	}
	t.byWD = map[int][]*trackedDir{}
	t.dirs = map[dirKey]*trackedDir{}
	t.marked = map[*trackedDir]bool{}
	t.bare = map[*trackedDir]bool{}
	t.valid = false
}

func (t *trackedTree) close() {
	if t.watch != nil {
		t.watch.close()
		t.watch = nil
	}
}

// update brings the state up to date: from the queued changes when it
// can, else by walking every root.
func (t *trackedTree) update() error {
	for range maxRaces {
		err := t.updateOnce()
		if !errors.Is(err, errRaced) {
			return err
		}
		t.valid = false
	}
	return fmt.Errorf("%w, %d times: something keeps changing it; run the command again", errRaced, maxRaces)
}

func (t *trackedTree) updateOnce() error {
	t.walked = 0
	if t.watch == nil {
		return t.walkAll()
	}
	changes, overflow, err := t.watch.drain()
	if err != nil || overflow || !t.valid {
		if err != nil {
			t.watch.close()
			t.watch = nil
		}
		return t.walkAll()
	}
	if len(changes) == 0 {
		return nil
	}
	return t.apply(changes)
}

// walkAll forgets everything but the denied identities and walks every
// root. An identity no name is found for is forgotten.
func (t *trackedTree) walkAll() error {
	t.reset()
	t.found = map[fileID]bool{}
	t.grew = false
	for i, r := range t.w.roots {
		if _, err := t.walkDir(i, r, "."); err != nil {
			t.valid = false
			return err
		}
	}
	t.ids, t.found = t.found, nil
	t.denyKnown()
	t.valid = t.watch != nil
	return nil
}

// denyKnown marks denied every name found of a denied identity: another
// name of a denied file seen before the denied one (a hard link) is one,
// whatever happens to the denied name later.
func (t *trackedTree) denyKnown() {
	for td := range t.marked {
		for name, m := range td.marks {
			if !m.deny && !m.vcs && m.id != (fileID{}) && t.ids[m.id] {
				m.deny = true
				td.marks[name] = m
			}
		}
	}
}

// apply re-reads the entries the changes name, shallowest first; a
// directory created, moved in, or whose mode changed is walked whole.
func (t *trackedTree) apply(changes []change) error {
	type entry struct {
		key  dirKey
		name string
	}
	var dirty []entry
	seen := map[entry]bool{}
	for _, c := range changes {
		for _, td := range t.byWD[c.wd] {
			if c.self && td.key.rel == "." {
				return t.walkAll() // a root moved, or its file system went
			}
			if c.name == "" || c.gone {
				continue // the same change reaches the parent, by name
			}
			e := entry{td.key, c.name}
			if !seen[e] {
				seen[e] = true
				dirty = append(dirty, e)
			}
		}
	}
	slices.SortStableFunc(dirty, func(a, b entry) int {
		return strings.Count(a.key.rel, "/") - strings.Count(b.key.rel, "/")
	})
	t.recheck = map[fileID]bool{}
	t.recheckAll = false
	t.grew = false
	fresh := map[dirKey]bool{}
	for _, e := range dirty {
		td := t.dirs[e.key]
		if td == nil || fresh[e.key] {
			continue // dropped or walked anew by an earlier entry
		}
		t.drop(td, e.name)
		r := t.w.roots[e.key.root]
		rel := path.Join(e.key.rel, e.name)
		fi, err := lookAt(hostPath(r, rel))
		if err != nil {
			// Gone: if it was another name of a file, unknown to the
			// walk (it went before it was looked at), that file's link
			// count changed.
			t.recheckAll = true
			continue
		}
		walked, err := t.entry(td, e.name, fi)
		if err != nil {
			return err
		}
		for _, k := range walked {
			fresh[k] = true
		}
	}
	for _, e := range dirty {
		if td := t.dirs[e.key]; td != nil && bareNames[e.name] {
			t.checkBare(td)
		}
	}
	t.relink()
	if t.grew {
		return t.walkAll() // a new file with other names: find them all
	}
	// An identity is kept while a denied name has it: a rename drops the
	// old name and marks the new one in the same batch of changes (the
	// kernel queues both in the one system call), so none is lost here.
	live := map[fileID]bool{}
	for td := range t.marked {
		for _, m := range td.marks {
			if m.deny {
				live[m.id] = true
			}
		}
	}
	for id := range t.ids {
		if !live[id] {
			delete(t.ids, id)
		}
	}
	return nil
}

// relink re-reads the link counts of the files that had another name
// removed, which inotify reports to the directory of the name only.
func (t *trackedTree) relink() {
	if len(t.recheck) == 0 && !t.recheckAll {
		return
	}
	for td := range t.marked {
		for name, m := range td.marks {
			if m.links == 0 || !t.recheck[m.id] && !t.recheckAll {
				continue
			}
			fi, err := lookAt(hostPath(t.w.roots[td.key.root], path.Join(td.key.rel, name)))
			if err != nil {
				continue
			}
			m.links = max(fi.links, 1)
			if m.links == 1 && !m.deny && !m.readOnly && !m.vcs {
				delete(td.marks, name)
				continue
			}
			td.marks[name] = m
		}
		if len(td.marks) == 0 {
			delete(t.marked, td)
		}
	}
	t.recheck = nil
}

// drop forgets the entry name of td, and, for a directory, everything
// below it.
func (t *trackedTree) drop(td *trackedDir, name string) {
	if m, ok := td.marks[name]; ok {
		if m.links > 1 {
			t.recheck[m.id] = true
		}
		delete(td.marks, name)
		if len(td.marks) == 0 {
			delete(t.marked, td)
		}
	}
	if !td.subdirs[name] {
		return
	}
	delete(td.subdirs, name)
	var forget func(k dirKey)
	forget = func(k dirKey) {
		sub := t.dirs[k]
		if sub == nil {
			return
		}
		for n := range sub.subdirs {
			forget(dirKey{k.root, path.Join(k.rel, n)})
		}
		for _, m := range sub.marks {
			if m.links > 1 && t.recheck != nil {
				t.recheck[m.id] = true
			}
			if m.isDir && (m.vcs || m.deny) {
				// Gone with what the walk never entered: the link counts
				// of files with names there changed.
				t.recheckAll = true
			}
		}
		delete(t.marked, sub)
		delete(t.bare, sub)
		delete(t.dirs, k)
		if sub.wd >= 0 {
			list := slices.DeleteFunc(t.byWD[sub.wd], func(d *trackedDir) bool { return d == sub })
			if len(list) == 0 {
				delete(t.byWD, sub.wd)
				t.watch.unwatch(sub.wd)
			} else {
				t.byWD[sub.wd] = list
			}
		}
	}
	forget(dirKey{td.key.root, path.Join(td.key.rel, name)})
}

func hostPath(r *root, rel string) string {
	return filepath.Join(r.real, filepath.FromSlash(rel))
}

// walkDir walks the directory rel of root i, returning the directories it
// entered. It is opened without following a link, watched through the
// open file, then listed: a change after the listing is queued.
func (t *trackedTree) walkDir(i int, r *root, rel string) ([]dirKey, error) {
	f, err := os.OpenFile(hostPath(r, rel), os.O_RDONLY|oDirNoFollow, 0)
	if err != nil {
		return nil, openError(err)
	}
	defer f.Close()
	td := &trackedDir{key: dirKey{i, rel}, wd: -1, subdirs: map[string]bool{}, marks: map[string]mark{}}
	if t.watch != nil {
		wd, err := t.watch.watch(f)
		if err != nil {
			// The user's limit of watches, most likely: walk whole from
			// now on.
			t.watch.close()
			t.watch = nil
			t.byWD = map[int][]*trackedDir{}
			for _, d := range t.dirs {
				d.wd = -1
			}
		} else {
			td.wd = wd
			t.byWD[wd] = append(t.byWD[wd], td)
		}
	}
	t.dirs[td.key] = td
	walked := []dirKey{td.key}
	bare := 0 // HEAD, objects and refs seen: a bare repository, to git
	for {
		ents, err := f.ReadDir(1024)
		for _, e := range ents {
			if t.walked++; t.walked > maxSandboxWalk {
				return nil, fmt.Errorf("workspace: sandbox: more than %d files and directories to walk", maxSandboxWalk)
			}
			if bareNames[e.Name()] {
				bare++
			}
			fi := entryInfo{mode: e.Type()}
			if typ := e.Type(); typ.IsRegular() || typ.IsDir() {
				// The identity, and a file's link count.
				if fi, err = lookAt(filepath.Join(hostPath(r, rel), e.Name())); err != nil {
					if errors.Is(err, fs.ErrNotExist) {
						continue // gone since the listing: its removal is queued
					}
					return nil, err
				}
			}
			sub, err := t.entry(td, e.Name(), fi)
			if err != nil {
				return nil, err
			}
			walked = append(walked, sub...)
		}
		if err == io.EOF || len(ents) == 0 {
			if bare == len(bareNames) {
				t.checkBare(td)
			}
			return walked, nil
		}
		if err != nil {
			return nil, openError(err)
		}
	}
}

// bareNames are the entries that make a directory a bare repository to
// git, which reads its config and runs its hooks when run there.
var bareNames = map[string]bool{"HEAD": true, "objects": true, "refs": true}

// checkBare notes whether td is a bare repository now.
func (t *trackedTree) checkBare(td *trackedDir) {
	r := t.w.roots[td.key.root]
	td.bare = td.key.rel != "."
	for name := range bareNames {
		fi, err := lookAt(hostPath(r, path.Join(td.key.rel, name)))
		if err != nil || (name == "HEAD") != fi.mode.IsRegular() || (name != "HEAD") != fi.mode.IsDir() {
			td.bare = false
		}
	}
	if td.bare {
		t.bare[td] = true
	} else {
		delete(t.bare, td)
	}
}

// openError sorts out a directory that could not be read: one that moved
// or went since it was listed is a race; any other error is returned, for
// the entry to be hidden whole (a directory the walk cannot read is not a
// directory nothing under which is protected).
func openError(err error) error {
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.ELOOP) {
		return errRaced
	}
	return err
}

// entryInfo is what the walk reads of an entry: its type, and for a
// regular file or a directory its identity and link count.
type entryInfo struct {
	mode  fs.FileMode
	id    fileID
	links int
}

// entry looks at the entry name of td, and walks it when it is a
// directory to enter.
func (t *trackedTree) entry(td *trackedDir, name string, fi entryInfo) ([]dirKey, error) {
	r := t.w.roots[td.key.root]
	rel := path.Join(td.key.rel, name)
	typ := fi.mode.Type()
	isDir := typ.IsDir()
	set := func(m mark) {
		td.marks[name] = m
		t.marked[td] = true
	}
	if vcsDirs[name] && (isDir || typ.IsRegular()) {
		// A directory made or moved here that the walk does not enter
		// may hold other names of files it knows: a whole walk counts
		// them.
		t.grew = t.grew || t.found == nil && isDir
		m := mark{vcs: true, isDir: isDir, id: fi.id}
		if typ.IsRegular() {
			// A .git file with other names: they are found by a whole
			// walk, and its going changes their count.
			m.links = fi.links
			t.grew = t.grew || t.found == nil && m.links > 1
		}
		set(m)
		return nil, nil
	}
	var id fileID
	links := 0
	if typ.IsRegular() || isDir {
		id = fi.id
		if typ.IsRegular() {
			links = fi.links
		}
	}
	// The directories above were checked on the way down: only the
	// entry itself is matched; then its identity.
	n := denyNames(rel)
	denied, _ := t.w.deny.Match(n, isDir)
	denied = denied || isDir && matchFile(t.w.deny, n)
	if id != (fileID{}) {
		denied = denied || t.ids[id] || t.found[id]
		if denied && t.found != nil {
			t.found[id] = true
		} else if denied {
			t.ids[id] = true
		}
	}
	m := mark{deny: denied, isDir: isDir, id: id}
	if links > 1 {
		m.links = links
		// Found by a change, not a whole walk: its other names are
		// found by one, if they matter.
		t.grew = t.grew || t.found == nil && (!t.w.allowLinks || denied)
	}
	if !denied && t.w.readOnly.Len() > 0 {
		if ro, _ := t.w.readOnly.Match(n, isDir); ro || isDir && matchFile(t.w.readOnly, n) {
			m.readOnly = true
		}
	}
	if m.deny || m.readOnly || m.links > 1 {
		set(m)
	}
	if !isDir || denied {
		t.grew = t.grew || t.found == nil && isDir // as for a repository
		return nil, nil
	}
	td.subdirs[name] = true
	walked, err := t.walkDir(td.key.root, r, rel)
	if err != nil && !errors.Is(err, errRaced) && !strings.HasPrefix(err.Error(), "workspace: sandbox:") {
		// Unreadable (its mode, a file system that refuses): hidden
		// whole, failing closed; its contents are unknown.
		delete(td.subdirs, name)
		m.deny = true
		set(m)
		return nil, nil
	}
	return walked, err
}
