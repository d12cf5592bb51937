// Package engine is the reading path every command runs on: it opens and
// merges capture files (Inputs), reads and decodes them on two cores
// (Batches), and counts the frames and feeds them to the flow table
// (Engine), in capture order. report, packets, export, capture and the
// terminal UI (files and live) all use it; they differ only in what they
// do with each frame (an Observer) and with the result.
//
// # Inputs and their errors
//
// Open opens every file (memory-mapped when that pays, see
// pcapio.OpenFileMapped); a file that cannot be opened is recorded and left
// out, and the others are read. Records come in timestamp order
// (pcapio.Merger). Damage in one file is recorded with its file name and
// byte offset and the other files go on; everything before the damage is
// analysed. Every recorded error means exit status 1 for the command
// (Inputs.Failed, Inputs.WriteErrors).
//
// # The two-core pipeline
//
// Batches reads and decodes on a helper goroutine and hands the packets
// over in batches of 256 through a ring of 16 recycled batches (one
// channel operation per batch, no allocation per frame); the calling
// goroutine checks the ICRCs left to it, then observes. The helper also
// computes each packet's flows.FlowHash, which Engine.Run hands to the
// flow table (Table.ObserveFlowHash): on mirror captures the observing
// goroutine is the slower of the two. The result is the
// one a single loop over the records gives (TestPipelineMatchesSerial).
// When a read of a pipe or FIFO would block, the batch so far goes over
// part-full, and Config.Idle (a viewer's hook) is called once it is
// observed: frames are never held back waiting for more input.
//
// # Hooks
//
// Config.Keep is where a read filter drops frames: before they are counted
// or reach the flow table. An Observer sees every kept frame with its flow,
// on the observing goroutine: export writes rows there. A BatchObserver
// (RunBatches) sees each batch once it was counted and fed to the table,
// with the frames' flows and events: the TUI indexes frames there. Each Engine owns its table and counter and each Inputs its
// readers, so one engine per capture point can run side by side
// (TestEnginesSideBySide). RunLive is the same analysis over a live source,
// one record at a time, with a Tap for recording.
package engine
