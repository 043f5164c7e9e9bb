# SPDX-License-Identifier: GPL-2.0-or-later
# whyslow.fish - fish completion for whyslow: commands, options, metric and event names, presets, and files.
#
# Installed as share/fish/vendor_completions.d/whyslow.fish. As the bash completion does, it reads the commands
# and each command's options from the program's own -h and the names from `whyslow list --names`.

# The command given so far, or nothing.
function __whyslow_command
    set -l words (commandline -opc)
    for w in $words[2..-1]
        if not string match -q -- '-*' $w
            echo $w
            return 0
        end
    end
    return 1
end

# A command's options as "OPTION<tab>KIND<tab>HELP", KIND being flag, arg or optarg.
function __whyslow_options
    # string replace keeps a group that did not match as an empty field; string match would drop it.
    $argv[1] $argv[2] -h 2>/dev/null | string match -r '^    -.*' | string replace -r \
        '^    (?:(-[A-Za-z]), )?(--[a-z][a-z-]*)(\[=[^]]*\]| \S+(?: \S+)*)?(?:\s{2,}(.*))?$' '$1\t$2\t$3\t$4' |
    while read -l -d \t short long arg help
        set -l kind flag
        if string match -q -r '^\[=' -- "$arg"
            set kind optarg
        else if test -n "$arg"
            set kind arg
        end
        for o in $short $long
            test -n "$o"; and printf '%s\t%s\t%s\n' $o $kind "$help"
        end
    end
end

# Does option $argv[3] of command $argv[2] take a value?
function __whyslow_takes_value
    __whyslow_options $argv[1] $argv[2] | string match -q -- "$argv[3]"\t'arg'\t'*'
end

# The values of option $argv[3] of command $argv[2], for the token $argv[5] that holds them after the prefix $argv[4].
function __whyslow_values
    set -l prog $argv[1]
    set -l cmd $argv[2]
    set -l opt $argv[3]
    set -l pre $argv[4]
    set -l tok $argv[5]
    switch $opt
        case -e --events
            set -l head (string replace -r '[^,]*$' '' -- $tok)
            for n in ($prog list --names --kind metric,event 2>/dev/null)
                echo $pre$head$n
            end
        case --kind
            set -l head (string replace -r '[^,]*$' '' -- $tok)
            for n in metric event runner perf simulator derived hardware software pfm backend preset
                echo $pre$head$n
            end
        case --functions
            $prog list --names --kind event 2>/dev/null | string replace -r '^' -- $pre
        case --metric --primary
            $prog list --names --kind metric 2>/dev/null | string replace -r '^' -- $pre
        case --effect
            printf "$pre%s\n" hl bootstrap
        case --call-graph
            printf "$pre%s\n" fp dwarf none
        case --sim-scope
            printf "$pre%s\n" all regions regions-warm
        case --output
            # Not inherit for sim-job, whose stdout carries the piece it prints, and which refuses it.
            if test "$cmd" = sim-job
                printf "$pre%s\n" null pipe
            else
                printf "$pre%s\n" null pipe inherit
            end
        case --sim-preset
            $prog list --names --kind preset 2>/dev/null | string replace -r '^' -- $pre
        case --backend
            begin
                $prog list --names --kind backend 2>/dev/null
                echo auto
            end | string replace -r '^' -- $pre
        case -r --runs
            echo {$pre}auto
        case --sim-cache
            printf "$pre%s\n" L1i= L1d= L2= L3= LL=
        case --cost --result
            __fish_complete_suffix .json | string replace -r '^' -- $pre
        case '--export-*'
            __fish_complete_path $tok | string replace -r '^' -- $pre
    end
end

function __whyslow_complete
    set -l words (commandline -opc)
    set -l tok (commandline -ct)
    set -l prog $words[1]
    set -l cmd (__whyslow_command)
    if test -z "$cmd"
        $prog -h 2>/dev/null | string match -r '^    [a-z][a-z-]*  .*' | string replace -r '^    (\S+)\s+(.*)' '$1\t$2'
        printf 'help\topen the manual page of a command\n'
        printf '%s\t%s\n' --help 'show the commands' --version 'show the version'
        return
    end
    if test "$cmd" = help
        $prog -h 2>/dev/null | string match -r '^    [a-z][a-z-]*  .*' | string replace -r '^    (\S+).*' '$1'
        printf '%s\n' result whyslow.h
        return
    end

    # Walk the words between the command and this one: stat and sim-job stop reading options at the command
    # they run (`whyslow stat sort --output x` gives --output to sort), every command at "--"; compare's -L
    # takes two words (-L VAR a,b,c; one where it is VAR=a,b,c) and -P three (-P VAR MIN MAX), not one.
    set -l ended 0
    set -l nargs 0
    set -l value 0
    set -l extra 0
    set -l listname 0
    set -l i (contains -i -- $cmd $words)
    for w in $words[(math $i + 1)..-1]
        if test $value = 1
            set value 0
        else if test $extra -gt 0
            set extra (math $extra - 1)
            test $listname = 1; and string match -q -- '*=*' $w; and set extra 0
            set listname 0
        else if test $ended = 1
            set nargs (math $nargs + 1)
        else if test "$w" = --
            set ended 1
        else if contains -- $w -L --parameter-list; and test "$cmd" = compare
            set extra 2
            set listname 1
        else if contains -- $w -P --parameter-scan; and test "$cmd" = compare
            set extra 3
        else if string match -q -- '-*' $w
            __whyslow_takes_value $prog $cmd $w; and set value 1
        else
            set nargs (math $nargs + 1)
            contains -- $cmd stat sim-job; and set ended 1
        end
    end
    # The name, values, minimum or maximum of -L or -P: nothing to offer, not even files.
    test $extra -gt 0; and return

    if test $ended = 0
        # A value: --opt=VALUE, or the word after an option that takes one.
        if string match -q -- '--*=*' $tok
            set -l opt (string replace -r '=.*' '' -- $tok)
            __whyslow_values $prog $cmd $opt $opt= (string replace -r '^[^=]*=' '' -- $tok)
            return
        end
        if test $value = 1
            __whyslow_values $prog $cmd $words[-1] '' $tok
            return
        end
        if string match -q -- '-*' $tok
            __whyslow_options $prog $cmd | while read -l -d \t o k h
                printf '%s\t%s\n' $o $h
                test "$k" = optarg; and printf '%s=\t%s\n' $o $h
            end
            return
        end
    end
    switch $cmd
        case diff report
            __fish_complete_suffix .json
        case list
            $prog list --names --kind metric,event 2>/dev/null
        case stat sim-job
            # The command to run first, then its own arguments.
            if test $nargs = 0
                __fish_complete_command
            else
                __fish_complete_path $tok
            end
        case '*'
            __fish_complete_path $tok
    end
end

complete -c whyslow -f -a '(__whyslow_complete)'
