# Turns the page's stylesheet and script into C strings (cmake -P, run by
# render/CMakeLists.txt at build time): OUT, CSS, JS.  Bytes, not text, so
# no quoting or escaping can go wrong; a NUL ends each.
foreach(pair "treg_html_css;${CSS}" "treg_html_js;${JS}")
  list(GET pair 0 name)
  list(GET pair 1 file)
  file(READ "${file}" hex HEX)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
  string(REGEX REPLACE "((0x..,){20})" "\\1\n" bytes "${bytes}")
  string(APPEND body "const char ${name}[] = {\n${bytes}0x00};\n")
endforeach()
file(WRITE "${OUT}.tmp" "/* Generated from render/html by embed.cmake: do not edit. */\n${body}")
file(RENAME "${OUT}.tmp" "${OUT}")
