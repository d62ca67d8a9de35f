#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Check the virtio-net RoCE spec text against itself, its renderings and the ABI header.

    python3 check_spec.py DIR                          # DIR: this folder
    python3 check_spec.py DIR --upstream SPEC          # also re-verify upstream-labels.txt
    python3 check_spec.py DIR --upstream SPEC --update # rewrite upstream-labels.txt from SPEC

SPEC is a git checkout (or mirror) of the virtio specification (oasis-tcs/virtio-spec);
the environment variable VIRTIO_SPEC_UPSTREAM=SPEC does what --upstream does.

Fails (exit 1, one line per problem) if
  - virtio-net-roce.md or conformance.md differ from what tex2md.py generates now;
  - a sentence with MUST/SHOULD/MAY in a normative section does not start with
    \\conf{ID}, such a sentence appears outside normative sections, an ID repeats,
    is malformed, or sits in a section of the other party;
  - a struct or enum listed in the .tex differs from the one of the same name in
    include/linux/virtio_net_roce.h (members, order, types, array lengths, nested
    and anonymous aggregates), a header struct is not listed, a #define in a
    listing has another value in the header, a size "(N bytes)" or an offset in
    the configuration table disagrees with the header's layout;
  - the review table of README.md does not cover every review point of RFC v2,
    or names a section that the .tex does not have;
  - a \\ref names a label that is neither the .tex's own nor in upstream-labels.txt
    (the virtio specification's labels the text refers to, with the virtio-spec commit
    they were taken from), the list names a label the .tex no longer refers to, or is
    malformed;
  - with --upstream: a label of the list is not in that checkout's HEAD, or is
    defined there in another file than the list says (a newer commit than the
    list's is not an error: it prints a note to refresh the list with --update).
With --update it first rewrites upstream-labels.txt from SPEC's HEAD (if SPEC has
every label the .tex refers to), then checks as usual.
Prints "spec: ok (N statements, M structs, K upstream labels checked)" on success.
"""
import argparse
import difflib
import os
import re
import subprocess
import sys

LABELS = 'upstream-labels.txt'
UPSTREAM_ENV = 'VIRTIO_SPEC_UPSTREAM'
LABELS_HEADER = '''\
# The labels of the virtio specification that virtio-net-roce.tex refers to
# (\\ref), each with the upstream file that defines it, taken from the
# virtio-spec commit below. check_spec.py checks every \\ref against this list.
# Re-verify it against a virtio-spec checkout, or rewrite it from one:
#   python3 check_spec.py . --upstream SPEC [--update]
# Format: "commit <id>", then one "<label><TAB><file>" a line, sorted.
'''
KEYWORD = re.compile(r'\b(MUST|SHOULD|MAY|SHALL|REQUIRED|RECOMMENDED)\b')
CONF_ID = re.compile(r'ROCE-(DEV|DRV)-[A-Z0-9]+-[1-9][0-9]*$')
TEX_TYPES = {'u8': '__u8', 'le16': '__le16', 'le32': '__le32', 'le64': '__le64',
             'be32': '__be32'}
SIZES = {'__u8': 1, '__le16': 2, '__le32': 4, '__be32': 4, '__le64': 8}
ALIASES = {'virtio_net_config': 'virtio_net_roce_config'}  # the spec's name -> the header's
NOT_IN_HEADER = {'virtio_net_ctrl'}                        # generic format, no ABI struct

# Every review point of Jason Wang's message on RFC v2 (2022-08-04), by a phrase its
# row in the README review table quotes.
REVIEW_POINTS = [
    'version of ROCE', 'advantages of this over the existing pvrdma', 'performance numbers',
    'live migration support', 'virtqueue resize', 'enabling/disabling virtqueue',
    'ROCE transport device API', 'why 16384', 'meaning of this capability',
    'migration compatibility issue', 'hardware version', 'implied in the virtqueue size',
    'virtqueue size for the completion queue', 'perations', '"atom" suffix', '4GB',
    'limit of the total number of PDs', 'GET_DMA_MR and USR_MR', 'LOCAL_READ',
    'I/O virtual address', 'size of a page', 'this command can fail',
    'explain the above error codes', 'unify this with virtio_rdma_cmd_modify_qp',
    'pending requests', 'differences on those two flags', 'How to do the reset',
    'keyword must belong to the normative section', 'more verbose', 'sg is a must',
    'virtqueue notification of cq', 'previously',
]

errors = []


def err(msg):
    errors.append(msg)


def check_generated(d):
    for args, name in ((['virtio-net-roce.tex'], 'virtio-net-roce.md'),
                       (['--conformance', 'virtio-net-roce.tex'], 'conformance.md')):
        run = subprocess.run([sys.executable, 'tex2md.py'] + args, cwd=d,
                             capture_output=True, text=True)
        if run.returncode:
            err('tex2md.py %s failed: %s' % (' '.join(args), run.stderr.strip()))
            continue
        path = os.path.join(d, name)
        have = open(path, encoding='utf-8').read() if os.path.exists(path) else ''
        if have != run.stdout:
            diff = list(difflib.unified_diff(have.splitlines(), run.stdout.splitlines(),
                                             name, 'generated', lineterm='', n=0))
            err('%s is stale; regenerate with: python3 tex2md.py %s > %s\n  %s'
                % (name, ' '.join(args), name, '\n  '.join(diff[2:8])))


def check_statements(t2m, blocks):
    seen, count = {}, 0
    for norm, line, text in t2m.units(blocks):
        for s in t2m.SENTENCE_END.split(text):
            conf = re.match(r'\\conf\{([^}]*)\}', s)
            short = ' '.join(s.split())[:70]
            if '\\conf{' in s[1:] and not (conf and '\\conf{' not in s[conf.end():]):
                err('line %d: \\conf inside a sentence: %s' % (line, short))
            if not norm:
                if KEYWORD.search(s) or conf:
                    err('line %d: normative keyword or \\conf outside a normative section: %s'
                        % (line, short))
                continue
            if KEYWORD.search(s) and not conf:
                err('line %d: normative sentence without \\conf: %s' % (line, short))
            if not conf:
                continue
            count += 1
            ident = conf.group(1)
            m = CONF_ID.match(ident)
            if not KEYWORD.search(s):
                err('line %d: %s has no MUST, SHOULD or MAY' % (line, ident))
            if s.rstrip().endswith(':'):
                err('line %d: %s must be one complete sentence, not an introduction'
                    % (line, ident))
            if not m:
                err('line %d: malformed ID %s' % (line, ident))
            elif {'DEV': 'device', 'DRV': 'driver'}[m.group(1)] != norm:
                err('line %d: %s in a %s requirements section' % (line, ident, norm))
            if ident in seen:
                err('line %d: %s already used at line %d' % (line, ident, seen[ident]))
            seen[ident] = line
    return count


def value(expr, defs, depth=0):
    if depth > 20:
        raise ValueError('recursive definition')
    expr = re.sub(r'\b(\d+)[uUlL]+\b', r'\1', expr)
    expr = re.sub(r'\b[A-Za-z_]\w*\b',
                  lambda m: '(%d)' % value(defs[m.group(0)], defs, depth + 1), expr)
    if not re.fullmatch(r'[0-9a-fA-FxX()<>|&+\-*/~ ]+', expr):
        raise ValueError('cannot evaluate ' + expr)
    return eval(expr, {'__builtins__': {}})  # digits and operators only, checked above


def split_top(body, sep):
    parts, depth, cur = [], 0, ''
    for ch in body:
        depth += {'{': 1, '}': -1}.get(ch, 0)
        if ch == sep and depth == 0:
            parts.append(cur.strip())
            cur = ''
        else:
            cur += ch
    return parts + ([cur.strip()] if cur.strip() else [])


def members(body, tex):
    out = []
    for p in split_top(body, ';'):
        p = ' '.join(p.split())
        m = re.match(r'(struct|union) ?\{(.*)\} ?(\w*)$', p)
        if m:
            out.append((m.group(1), tuple(members(m.group(2), tex)), m.group(3), ()))
            continue
        m = re.match(r'((?:struct )?\w+) (\w+)((?: ?\[[^\]]*\])*)$', p)
        if not m:
            raise ValueError('cannot parse member "%s"' % p)
        if m.group(1) in (SIZES if tex else TEX_TYPES):
            raise ValueError('member "%s" uses a type of the other notation' % p)
        typ = TEX_TYPES.get(m.group(1), m.group(1)) if tex else m.group(1)
        out.append((typ, None, m.group(2), tuple(re.findall(r'\[([^\]]*)\]', m.group(3)))))
    return out


def parse_c(text, tex):
    """(defines, {'struct x': members, 'enum x': [(name, expr)]}) of C text."""
    text = re.sub(r'/\*.*?\*/|//[^\n]*', ' ', text.replace('\\\n', ' '), flags=re.S)
    defines = dict(re.findall(r'^[ \t]*#define[ \t]+(\w+)(?![\w(])[ \t]*(.*?)[ \t]*$', text, re.M))
    text = re.sub(r'^[ \t]*#.*$', '', text, flags=re.M)
    aggr = {}
    for m in re.finditer(r'\b(struct|enum) (\w+)\s*\{', text):
        depth, j = 0, m.end() - 1
        while True:
            depth += {'{': 1, '}': -1}.get(text[j], 0)
            if depth == 0:
                break
            j += 1
        body, name = text[m.end():j], m.group(2)
        if m.group(1) == 'enum':
            aggr['enum ' + name] = [tuple(x.strip() for x in (e.split('=') + [''])[:2])
                                    for e in split_top(body, ',')]
        elif name not in NOT_IN_HEADER or not tex:
            aggr['struct ' + (ALIASES.get(name, name) if tex else name)] = members(body, tex)
    return defines, aggr


def resolve(mems, defs):
    return tuple((t, resolve(sub, defs) if sub is not None else None, n,
                  tuple(value(x, defs) if x else None for x in dims)) for t, sub, n, dims in mems)


def enum_values(entries, defs):
    out, nxt = [], 0
    for name, expr in entries:
        nxt = value(expr, defs) if expr else nxt
        out.append((name, nxt))
        defs.setdefault(name, str(nxt))
        nxt += 1
    return out


def layout(mems, structs, union=False):
    """(size, alignment, {member: offset}) with the C rules the header's types imply."""
    off = size = 0
    align, offsets = 1, {}
    for typ, sub, name, dims in mems:
        if sub is not None:
            s, a, _ = layout(sub, structs, typ == 'union')
        elif typ.startswith('struct '):
            s, a, _ = layout(structs[typ], structs)
        else:
            s = a = SIZES[typ]
        n = 1
        for d in dims:
            n *= d if d is not None else 0
        start = 0 if union else -(-off // a) * a
        offsets[name] = start
        off = start + s * n
        size, align = max(size, off), max(align, a)
    return -(-size // align) * align, align, offsets


def code_blocks(blocks):
    for b in blocks:
        if b.kind == 'code':
            yield b
        for sub in [x[1] for x in getattr(b, 'items', [])] + [getattr(b, 'blocks', [])]:
            yield from code_blocks(sub)


def check_abi(d, blocks, tex_source):
    hdefs, haggr = parse_c(open(os.path.join(d, 'include/linux/virtio_net_roce.h')).read(), False)
    for key, entries in haggr.items():
        if key.startswith('enum '):
            haggr[key] = enum_values(entries, hdefs)
    hstructs = {k: resolve(v, hdefs) for k, v in haggr.items() if k.startswith('struct ')}
    tdefs, tstructs, checked = {}, {}, 0
    for b in code_blocks(blocks):
        try:
            defs, aggr = parse_c('\n'.join(b.lines), True)
            tdefs.update({k: (v, b.line) for k, v in defs.items()})
            for key, entries in aggr.items():
                if key in tstructs:
                    err('listing at line %d: %s listed twice' % (b.line, key))
                if key not in haggr:
                    err('listing at line %d: %s is not in the header' % (b.line, key))
                elif key.startswith('enum '):
                    if enum_values(entries, dict(hdefs)) != haggr[key]:
                        err('listing at line %d: %s differs from the header' % (b.line, key))
                else:
                    tstructs[key] = resolve(entries, hdefs)
                    checked += 1
                    if tstructs[key] != hstructs[key]:
                        diff = [(x, y) for x, y in zip(tstructs[key] + (None,),
                                                       hstructs[key] + (None,)) if x != y]
                        err('listing at line %d: %s differs from the header: .tex %s, header %s'
                            % (b.line, key, diff[0][0], diff[0][1]))
        except (ValueError, KeyError) as e:
            err('listing at line %d: %s' % (b.line, e))
    for key in sorted(set(hstructs) - set(tstructs)):
        err('%s of the header is not listed in the .tex' % key)
    for name, (expr, line) in sorted(tdefs.items()):
        try:
            if name not in hdefs:
                err('listing at line %d: #define %s is not in the header' % (line, name))
            elif value(expr, hdefs) != value(hdefs[name], hdefs):
                err('listing at line %d: %s = %s, header says %s' % (line, name, expr, hdefs[name]))
        except (ValueError, KeyError) as e:
            err('listing at line %d: %s: %s' % (line, name, e))
    for m in re.finditer(r'\\field\{struct (\w+)\}\s*\((\d+) bytes\)', tex_source):
        key = 'struct ' + m.group(1)
        if key not in hstructs or layout(hstructs[key], hstructs)[0] != int(m.group(2)):
            err('.tex says sizeof(%s) is %s bytes; the header disagrees' % (key, m.group(2)))
    _, _, offs = layout(hstructs['struct virtio_net_roce_config'], hstructs)
    for b in blocks:
        if b.kind == 'table' and b.rows[0][:3] == ['Field', 'Offset', 'Size']:
            for row in b.rows[1:]:
                name = re.sub(r'\\field\{(\w+)\}', r'\1', row[0]).replace('\\_', '_')
                if offs.get(name) != int(row[1]):
                    err('configuration table: %s at offset %s; the header says %s'
                        % (name, row[1], offs.get(name)))
    return checked


def check_review(d, titles):
    path = os.path.join(d, 'README.md')
    text = open(path, encoding='utf-8').read() if os.path.exists(path) else ''
    m = re.search(r'^#+ .*[Rr]eview.*\n((?:.*\n)*?)(?=^#|\Z)', text, re.M)
    rows = [r for r in (m.group(1).splitlines() if m else []) if r.startswith('|')][2:]
    if len(rows) < len(REVIEW_POINTS):
        err('README review table has %d rows for %d review points'
            % (len(rows), len(REVIEW_POINTS)))
    table = '\n'.join(rows).lower()
    for point in REVIEW_POINTS:
        if point.lower() not in table:
            err('README review table does not answer the review point "%s"' % point)
    for row in rows:
        cells = [c.strip() for c in re.split(r'(?<!\\)\|', row)[1:-1]]
        for sec in (cells[3].split(';') if len(cells) == 4 else [None]):
            if sec is None or re.sub(r'[`*]', '', sec).strip() not in titles:
                err('README review row %s: section "%s" is not a heading of the .tex'
                    % (cells[0] if cells else '?', sec))


def upstream_refs(tex_source, refs):
    """The labels the .tex refers to and does not define itself."""
    return sorted(set(re.findall(r'\\ref\{([^}]*)\}', tex_source)) - set(refs))


def read_labels(path):
    """(commit, {label: file}) of the committed list; errors for malformed lines."""
    name = os.path.basename(path)
    if not os.path.exists(path):
        err('%s is missing; write it with: python3 check_spec.py . --upstream SPEC --update'
            % name)
        return None, {}
    commit, labels = None, {}
    for n, line in enumerate(open(path, encoding='utf-8').read().splitlines(), 1):
        if not line or line.startswith('#'):
            continue
        m = re.fullmatch(r'commit ([0-9a-f]{40})', line)
        if m and commit is None:
            commit = m.group(1)
            continue
        parts = line.split('\t')
        if len(parts) != 2 or not all(p.strip() == p and p for p in parts):
            err('%s:%d: expected "commit <40 hex digits>" once, then "<label><TAB><file>"'
                % (name, n))
            continue
        if parts[0] in labels:
            err('%s:%d: %s listed twice' % (name, n, parts[0]))
        labels[parts[0]] = parts[1]
    if commit is None:
        err('%s: no "commit <40 hex digits>" line' % name)
    return commit, labels


def format_labels(commit, labels):
    return LABELS_HEADER + 'commit %s\n' % commit + ''.join(
        '%s\t%s\n' % (label, labels[label]) for label in sorted(labels))


def git(spec, *args):
    run = subprocess.run(['git', '-C', spec] + list(args), capture_output=True, text=True)
    return run.stdout if run.returncode == 0 else None


def upstream_labels(spec, wanted):
    """(commit, {label: file}) of the labels of @wanted that @spec's HEAD defines."""
    commit = (git(spec, 'rev-parse', '--verify', '-q', 'HEAD^{commit}') or '').strip()
    if not commit:
        err('--upstream %s: not a git checkout of the virtio specification' % spec)
        return None, {}
    found = {}
    for label in wanted:
        out = git(spec, 'grep', '-l', '-F', '\\label{%s}' % label, commit, '--', '*.tex')
        files = [f.split(':', 1)[1] for f in (out or '').splitlines()]
        if files:
            found[label] = files[0]
    return commit, found


def check_upstream_refs(d, tex_source, refs, spec, update):
    path = os.path.join(d, LABELS)
    wanted = upstream_refs(tex_source, refs)
    if update:
        commit, found = upstream_labels(spec, wanted)
        if commit is None:
            return
        missing = [label for label in wanted if label not in found]
        for label in missing:
            err('\\ref{%s}: no such label in the virtio specification at %s'
                % (label, commit))
        if not missing:
            with open(path, 'w', encoding='utf-8') as f:
                f.write(format_labels(commit, found))
            print('spec: %s written from virtio-spec %s (%d labels)'
                  % (LABELS, commit, len(found)))
        return
    commit, labels = read_labels(path)
    for label in wanted:
        if label not in labels:
            err('\\ref{%s}: not in %s; if the virtio specification has it, add it with: '
                'python3 check_spec.py . --upstream SPEC --update' % (label, LABELS))
    for label in sorted(set(labels) - set(wanted)):
        err('%s lists %s, which the .tex does not refer to' % (LABELS, label))
    if not spec or commit is None:
        return
    head, found = upstream_labels(spec, sorted(labels))
    if head is None:
        return
    for label in sorted(labels):
        if label not in found:
            err('%s: %s is not in the virtio specification at %s' % (LABELS, label, head))
        elif found[label] != labels[label]:
            err('%s: %s is in %s at %s, not in %s'
                % (LABELS, label, found[label], head, labels[label]))
    if head != commit:
        print('spec: %s (virtio-spec %s) verified at virtio-spec %s; '
              'refresh with --update to record it' % (LABELS, commit[:12], head[:12]))


def main(argv):
    ap = argparse.ArgumentParser(prog='check_spec.py', description=__doc__.split('\n')[0])
    ap.add_argument('dir', help='the virtio-spec folder of this project')
    ap.add_argument('--upstream', metavar='SPEC', default=os.environ.get(UPSTREAM_ENV) or None,
                    help='a git checkout of the virtio specification to re-verify %s '
                    'against (default: $%s)' % (LABELS, UPSTREAM_ENV))
    ap.add_argument('--update', action='store_true',
                    help='rewrite %s from --upstream\'s HEAD' % LABELS)
    args = ap.parse_args(argv[1:])
    if args.update and not args.upstream:
        ap.error('--update needs --upstream SPEC (or $%s)' % UPSTREAM_ENV)
    d = os.path.abspath(args.dir)
    sys.path.insert(0, d)
    sys.dont_write_bytecode = True      # leave no __pycache__ in the source tree
    import tex2md
    tex = os.path.join(d, 'virtio-net-roce.tex')
    try:
        blocks = tex2md.parse(tex)
        refs = tex2md.make_refs(blocks)
    except tex2md.TexError as e:
        print('spec: %s:%d: %s' % (tex, e.args[0], e.args[1]))
        return 1
    source = open(tex, encoding='utf-8').read()
    check_generated(d)
    statements = check_statements(tex2md, blocks)
    structs = check_abi(d, blocks, source)
    check_review(d, {re.sub(r'[`*]', '', tex2md.inline(b.title, b.line, refs))
                     for b in blocks if b.kind == 'heading'})
    check_upstream_refs(d, source, refs, args.upstream, args.update)
    for e in errors:
        print('spec: ' + e)
    if errors:
        return 1
    print('spec: ok (%d statements, %d structs, %d upstream labels checked)'
          % (statements, structs, len(upstream_refs(source, refs))))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
