#!/usr/bin/env bash
# Makes the short test videos of the best-frame tests from the public-domain portraits in Golden/ (see
# Golden/SOURCES.md), with Debian's ffmpeg (libx264, libx265) and the vips command. Deterministic, a few
# seconds in all. Usage: scripts/make-test-videos.sh OUTDIR
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:?usage: make-test-videos.sh OUTDIR}"
mkdir -p "$out"
hopper="$root/Golden/portrait-16x9/input.jpg"   # 512x512, face [183,104,168,215]
obama="$root/Golden/haar-portrait/input.jpg"    # 461x599
ff() { ffmpeg -nostdin -hide_banner -loglevel error -y "$@"; }
x264=(-c:v libx264 -preset veryfast -crf 16 -pix_fmt yuv420p -x264-params keyint=5:min-keyint=5:scenecut=0)

# best.mp4: 2 s at 30 fps, 480x480, twelve slots of 5 frames, so --frames 12 samples one frame of each.
# Every slot shows the same 480x480 window of the portrait (offset 16,16), except the shaken one, whose window
# jumps around. Slot 7 is the only sharp, well-lit, steady face; the others are blurred, shaken, dark, noisy
# or faceless.
still="crop=480:480:16:16"
slots=(
  "$still,gblur=sigma=3"                                                   # 0 blurred
  "crop=480:480:'16+16*sin(n*2.3)':'16+16*cos(n*1.7)',avgblur=sizeX=6:sizeY=2" # 1 shaken, motion-blurred
  "$still,lutyuv=y=val*0.22"                                               # 2 dark
  "$still,gblur=sigma=8"                                                   # 3 very blurred
  "$still,drawbox=x=134:y=54:w=240:h=300:color=0x808890:t=fill"            # 4 no face (covered)
  "$still,gblur=sigma=2"                                                   # 5 blurred
  "$still,gblur=sigma=2.5"                                                 # 6 blurred
  "$still"                                                                 # 7 THE BEST: sharp
  "$still,gblur=sigma=3.5"                                                 # 8 blurred
  "$still,noise=alls=70:allf=t"                                            # 9 noisy
  "$still,lutyuv=y=val*0.3,gblur=sigma=1.5"                                # 10 dark and soft
  "$still,gblur=sigma=4"                                                   # 11 blurred
)
graph="[0:v]split=12$(printf '[s%d]' $(seq 0 11));"
for i in "${!slots[@]}"; do
  graph+="[s$i]trim=start_frame=$((i * 5)):end_frame=$((i * 5 + 5)),setpts=PTS-STARTPTS,${slots[$i]},setsar=1[c$i];"
done
graph+="$(printf '[c%d]' $(seq 0 11))concat=n=12:v=1:a=0[v]"
ff -loop 1 -framerate 30 -t 2 -i "$hopper" -filter_complex "$graph" -map "[v]" -r 30 "${x264[@]}" "$out/best.mp4"

# soft.mp4: 2 s at 30 fps, 960x540, twelve slots of 5 frames of Obama's portrait in a wider frame (his face
# about 110 px tall at the analysis size, as in a phone's Live Photo): slot 6 sharp, every other slot only
# mildly soft (gaussian blur of sigma 0.5 to 1), the two beside it the least. The best frame is the sharp one,
# at --frames 12 and --every-frame.
soft=(1 0.75 1 0.5 0.75 0.5 0 0.5 0.75 1 0.5 1)
graph="[0:v]split=12$(printf '[s%d]' $(seq 0 11));"
for i in "${!soft[@]}"; do
  blur=$([ "${soft[$i]}" = 0 ] && echo "null" || echo "gblur=sigma=${soft[$i]}:steps=6")
  graph+="[s$i]trim=start_frame=$((i * 5)):end_frame=$((i * 5 + 5)),setpts=PTS-STARTPTS,scale=238:310,pad=960:540:361:115:0x6a7480,$blur,setsar=1[c$i];"
done
graph+="$(printf '[c%d]' $(seq 0 11))concat=n=12:v=1:a=0[v]"
ff -loop 1 -framerate 30 -t 2 -i "$obama" -filter_complex "$graph" -map "[v]" -r 30 "${x264[@]}" "$out/soft.mp4"

# settle.mp4: 2 s at 30 fps. Frames 0...29: a sharp 480x480 window panning 6 px per frame over the portrait
# enlarged to 768x768; frames 30...59: the window still, the picture soft (gaussian blur 3).
ff -loop 1 -framerate 30 -t 2 -i "$hopper" -filter_complex \
  "[0:v]scale=768:768,split[a][b];[a]trim=end_frame=30,setpts=PTS-STARTPTS,crop=480:480:'60+6*n':100[pan];
   [b]trim=start_frame=30:end_frame=60,setpts=PTS-STARTPTS,crop=480:480:240:100,gblur=sigma=3[rest];
   [pan][rest]concat=n=2:v=1:a=0,setsar=1[v]" -map "[v]" -r 30 "${x264[@]}" "$out/settle.mp4"

# focus.mp4: 1 s at 30 fps, a still 480x300 window of the portrait whose focus jumps every 3 frames between
# sharp and a gaussian blur of sigma 2 to 8: the content never moves, so every registered shift should be 0.
sigmas=(0.01 4 0.01 6 0.01 3 0.01 8 0.01 2)
graph="[0:v]split=10$(printf '[s%d]' $(seq 0 9));"
for i in "${!sigmas[@]}"; do
  graph+="[s$i]trim=start_frame=$((i * 3)):end_frame=$((i * 3 + 3)),setpts=PTS-STARTPTS,crop=480:300:0:40,gblur=sigma=${sigmas[$i]},setsar=1[c$i];"
done
graph+="$(printf '[c%d]' $(seq 0 9))concat=n=10:v=1:a=0[v]"
ff -loop 1 -framerate 30 -t 1 -i "$hopper" -filter_complex "$graph" -map "[v]" -r 30 "${x264[@]}" "$out/focus.mp4"

# pan.mp4: a 480x360 window over Obama's portrait enlarged to 960x1248 moves 4 px right and 2 px up per frame
# for frames 0...20, then stays: the content shifts by (-4, +2) per frame, then (0, 0). 1.5 s at 30 fps.
ff -loop 1 -framerate 30 -t 1.5 -i "$obama" \
  -vf "scale=960:1248,crop=480:360:'if(lt(n,20),200+4*n,280)':'if(lt(n,20),400-2*n,360)',setsar=1" -r 30 "${x264[@]}" "$out/pan.mp4"

# rotated.mov: HEVC, frames stored turned a quarter anticlockwise, with the display matrix phones write for
# portrait videos (ffprobe: rotation=-90; FFmpeg's legacy 'rotate' tag 270 writes it): displayed 360x480 upright.
ff -loop 1 -framerate 30 -t 1 -i "$hopper" -vf "scale=360:480,transpose=2,setsar=1" -r 30 \
  -c:v libx265 -preset ultrafast -crf 20 -pix_fmt yuv420p -tag:v hvc1 -x265-params log-level=error "$out/stored.mov"
ff -i "$out/stored.mov" -c copy -metadata:s:v:0 rotate=270 "$out/rotated.mov"
rm -f "$out/stored.mov"

# live/IMG_0001.{heic,mov}: a Live Photo. The still is sharp; every frame of the (HEVC) video is blurred.
mkdir -p "$out/live"
ff -loop 1 -framerate 30 -t 1 -i "$hopper" -vf "gblur=sigma=3,scale=384:384" -r 30 \
  -c:v libx265 -preset ultrafast -crf 20 -pix_fmt yuv420p -tag:v hvc1 -x265-params log-level=error "$out/live/IMG_0001.mov"
vips copy "$hopper" "$out/live/IMG_0001.heic[Q=90]" 2>/dev/null || cp "$hopper" "$out/live/IMG_0001.jpg"

# noface.mp4: 1 s of ffmpeg's test pattern, no face in it.
ff -f lavfi -i "testsrc2=size=320x240:rate=30:duration=1" "${x264[@]}" "$out/noface.mp4"

# Bad inputs: a cut-off MP4 (index first, data cut), an MP4 whose index never came (cut before the end with
# the index last), an AVI with a video stream but no frame, a text file named .mp4, audio only, and a still
# with no video beside it.
ff -i "$out/best.mp4" -c copy -movflags +faststart "$out/faststart.mp4"
head -c $(($(stat -c %s "$out/faststart.mp4") / 2)) "$out/faststart.mp4" >"$out/truncated.mp4"
head -c $(($(stat -c %s "$out/best.mp4") / 2)) "$out/best.mp4" >"$out/no-index.mp4"
rm -f "$out/faststart.mp4"
ff -f lavfi -i "testsrc2=size=320x240:rate=30" -frames:v 0 -c:v mpeg4 -f avi "$out/zero.avi"  # a video stream, no frame
printf 'this is not a video\n' >"$out/text.mp4"
# best.mp4's stream without its container, named .mp4: raw H.264 has no timestamps, nor a duration.
ff -i "$out/best.mp4" -c copy -bsf:v h264_mp4toannexb -f h264 "$out/raw-h264.mp4"
# Two raw streams end to end, 320x240 then 480x480: a picture size that changes at 1 s.
ff -i "$out/noface.mp4" -c copy -bsf:v h264_mp4toannexb -f h264 "$out/small.h264"
cat "$out/small.h264" "$out/raw-h264.mp4" >"$out/size-change.mp4"
rm -f "$out/small.h264"
# A playlist named .mp4 that names itself: FFmpeg's HLS demuxer would open it again and again.
printf '#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nplaylist.mp4\n' >"$out/playlist.mp4"
ff -f lavfi -i "sine=frequency=440:duration=1" -c:a aac "$out/audio.m4v"
cp "$hopper" "$out/lonely.jpg"
